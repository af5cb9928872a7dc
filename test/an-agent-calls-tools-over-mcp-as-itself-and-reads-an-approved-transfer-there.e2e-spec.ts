import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mintIdentityToken } from '@arvis/decision-client';
import { LOCAL_ADMIN_AUDIENCE, localKeys } from '../scripts/local-keys';
import { Harness } from './support/harness';
import { API_PORT_DISTANCE, DATA, type RunningApp } from './support/services';
import { Stack } from './support/stack';

type Answer = { status: string; decisionId?: string; success?: boolean; output?: Record<string, unknown>; entry?: Record<string, unknown> };

// The MCP front door (ADR 0074), driven by the SDK's own client: it lists the catalog's tools with
// their JSON Schemas; a tools/call is a decision sent with the caller's token and answered with its
// final entry; a transfer needing a confirmation comes back pending and its result is read over
// MCP once approved through the API. It is a resource server: only tokens whose aud is its URI pass.
describe('an agent calls governed tools over MCP as itself', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let mcp: RunningApp;
  let mcpUri: string;
  const issuer = localKeys(DATA).issuer;

  beforeAll(async () => {
    stack = await Stack.create('mcp');
    // The issuer's decisions audience is the front door's URI, so no token minted for another
    // service is a decision token. The front door starts next, on the port after the authorizer's.
    authorizer = await stack.start('authorizer', 'authorizer', {
      env: ({ port }) => {
        mcpUri = `http://127.0.0.1:${port + 1 + API_PORT_DISTANCE}/mcp`;
        return {
          RESULT_POLL_MS: '100',
          TRUSTED_ISSUERS: JSON.stringify([
            { issuer: issuer.issuer, alg: 'EdDSA', publicKey: issuer.publicKeyPem, tenants: ['*'], audience: { decisions: [mcpUri], admin: [LOCAL_ADMIN_AUDIENCE] } },
          ]),
        };
      },
    });
    mcp = await stack.start('mcp', 'mcp', {
      env: ({ apiPort }) => ({
        MCP_RESOURCE_URI: `http://127.0.0.1:${apiPort}/mcp`,
        MCP_ISSUERS: JSON.stringify([{ issuer: issuer.issuer, alg: 'EdDSA', publicKey: issuer.publicKeyPem }]),
        AUTHORIZER_URL: `http://127.0.0.1:${authorizer.apiPort}`,
        MCP_CONFIRMATION_WAIT_S: '1',
      }),
    });
    expect(`http://127.0.0.1:${mcp.apiPort}/mcp`).toBe(mcpUri);
    await stack.start('dispatcher', 'dispatcher');
    h = new Harness(stack.env);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const agentToken = (claims: { principal: string; tenant: string }, audience: string = mcpUri) =>
    mintIdentityToken(stack.env.issuer, { ...claims, serviceId: 'agent-1', sessionId: 's-1', audience });
  const connect = async (token: string) => {
    const client = new Client({ name: 'spec-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUri), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: result.isError === true, answer: result.structuredContent as Answer };
  };

  it('lists the catalog\'s tools with their JSON Schemas and appends a note, answered with its id', async () => {
    const client = await connect(await agentToken({ principal: 'alice', tenant: 'acme' }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(expect.arrayContaining(['arvis.result', 'ledger.transfer', 'notes.append']));
    const notes = tools.find((t) => t.name === 'notes.append')!;
    expect(notes.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', minLength: 1, maxLength: 2000 } }, required: ['text'], additionalProperties: false });
    expect(tools.find((t) => t.name === 'ledger.transfer')!._meta).toMatchObject({ 'arvis/requiresConfirmation': true });

    const { isError, answer } = await call(client, 'notes.append', { text: 'written over MCP' });
    expect(isError).toBe(false);
    expect(answer).toMatchObject({ status: 'final', success: true, kind: 'tool_result', output: { noteId: expect.any(String) } });
    // The decision was alice's own, judged by the authorizer and journaled under her identity.
    const [row] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1 AND tenant = $2', [answer.decisionId, 'acme']);
    expect(JSON.parse(row.entry)).toMatchObject({ principal: 'alice', tool: 'notes.append', output: { noteId: answer.output!.noteId } });
    // Arguments the tool's schema refuses are answered at once; nothing is sent.
    expect(await call(client, 'notes.append', { text: '' })).toMatchObject({ isError: true, answer: { status: 'invalid' } });
    await client.close();
  });

  it('a transfer needing a confirmation is pending; approved through the API, its result is read over MCP, and by no other tenant', async () => {
    const client = await connect(await agentToken({ principal: 'alice', tenant: 'acme' }));
    const pending = await call(client, 'ledger.transfer', { from: 'acc-1', to: 'acc-2', amountMinor: 4200, currency: 'EUR', reference: `mcp-${Date.now()}` });
    expect(pending).toMatchObject({ isError: false, answer: { status: 'pending', decisionId: expect.any(String), readWith: 'arvis.result' } });
    const decisionId = pending.answer.decisionId!;
    const globex = await connect(await agentToken({ principal: 'alice', tenant: 'globex' }));
    expect(await call(globex, 'arvis.result', { decisionId })).toMatchObject({ isError: true, answer: { status: 'not_found' } });

    await h.waitUntil('the transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [decisionId])).length === 1);
    const [{ confirmation_id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [decisionId]);
    const approved = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${confirmation_id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] })}` },
    });
    expect(approved.status).toBe(200);

    const read = await call(client, 'arvis.result', { decisionId, waitS: 20 });
    expect(read).toMatchObject({ isError: false, answer: { status: 'final', decisionId, success: true, output: { transferId: expect.any(String), deduplicated: false } } });
    expect(read.answer.entry).toMatchObject({ decisionId, tenant: 'acme', principal: 'alice', kind: 'tool_result' });
    // Another tenant's token sees nothing of it, now that it has a result either.
    expect(await call(globex, 'arvis.result', { decisionId })).toMatchObject({ isError: true, answer: { status: 'not_found' } });
    await Promise.all([client.close(), globex.close()]);
  });

  it('refuses a token minted for another audience, and no token, with 401 naming its protected-resource metadata', async () => {
    const inbox = async () => (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM decision_inbox'))[0].n;
    const before = await inbox();
    const elsewhere = await agentToken({ principal: 'alice', tenant: 'acme' }, LOCAL_ADMIN_AUDIENCE);
    await expect(connect(elsewhere)).rejects.toThrow(/401|invalid_token|Unauthorized/i);
    const metadataUrl = `http://127.0.0.1:${mcp.apiPort}/.well-known/oauth-protected-resource/mcp`;
    for (const headers of [{ authorization: `Bearer ${elsewhere}` }, {} as Record<string, string>]) {
      const res = await fetch(mcpUri, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes.append', arguments: { text: 'refused' } } }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer error="invalid_token".*resource_metadata="${metadataUrl.replace(/[.?/]/g, '\\$&')}"`));
    }
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toMatchObject({ resource: mcpUri, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'] });
    // Nothing of a refused call was sent: the authorizer received no decision (its pending poll would have read one).
    await new Promise((r) => setTimeout(r, 500));
    expect(await inbox()).toBe(before);
  });
});
