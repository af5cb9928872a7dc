import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Harness } from './support/harness';
import { TicketsMcpServer } from './support/mcp-server';
import { ROOT } from './support/services';
import { exited, Stack } from './support/stack';
import { FAST_RECOVERY } from './support/effect-probes';

const run = promisify(execFile);
// examples/mcp-tool is an ES module package (type: module) built from the packed tool SDK
// (scripts/build-example-tools.sh); its tools are the remote tools its snapshot pins.
const PACKAGE = join(ROOT, 'examples', 'mcp-tool');
const TOKEN = 'mcp-secret-token';

describe('the tools of an MCP server, pinned by a snapshot in an ES module tool package', () => {
  const server = new TicketsMcpServer(TOKEN);
  const dir = mkdtempSync(join(tmpdir(), 'arvis-mcp-'));
  const snapshot = join(dir, 'mcp-snapshot.json');
  const credentials = join(dir, 'token');
  let stack: Stack;
  let h: Harness;
  let env: Record<string, string>;
  let dispatcherEnv: Record<string, string>;
  const ticket = (title: string) => ({ tool: 'tickets.create_ticket', payload: { title } });
  const entryOf = async (decisionId: string) => {
    const [row] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [decisionId]);
    return JSON.parse(row.entry) as { effectBoundary: string; reasonCode?: string; idempotencyKey?: string; output?: { structuredContent?: { ticket: string } } };
  };

  beforeAll(async () => {
    if (!existsSync(join(PACKAGE, 'dist', 'index.js'))) throw new Error('examples/mcp-tool is not built: run bash scripts/build-example-tools.sh');
    const url = await server.listen();
    writeFileSync(credentials, `${TOKEN}\n`);
    await run(process.execPath, [join(PACKAGE, 'dist', 'write-snapshot.js'), '--url', url, '--credentials-file', credentials, '--provider', 'acme-tickets', '--consent', 'tickets', '--lookup-tool', 'lookup_call', '--out', snapshot]);
    stack = await Stack.create('mcptools');
    // The migrate step loads the package as the services do (it brings no migrations of its own).
    const packages = `${stack.env.appEnv.ARVIS_TOOL_PACKAGES},${PACKAGE}`;
    await run(process.execPath, [join(ROOT, 'dist', 'scripts', 'migrate.js')], { env: { ...process.env, ...stack.env.appEnv, ARVIS_TOOL_PACKAGES: packages, MCP_TOOL_SNAPSHOT: snapshot } });
    env = { ARVIS_TOOL_PACKAGES: packages, MCP_TOOL_SNAPSHOT: snapshot };
    dispatcherEnv = { ...env, ...FAST_RECOVERY, MCP_TOOL_URL: url, MCP_TOOL_CREDENTIALS_FILE: credentials };
    // The authorizer gets the snapshot alone: it judges without ever contacting the server.
    await stack.start('authorizer', 'authorizer', { env });
    h = await new Harness(stack.env).start();
    await h.query(`INSERT INTO consent_grants (tenant, principal, consent_key) VALUES ('acme', 'alice', 'tickets')`);
    await h.query(`INSERT INTO egress_policies (tenant, provider) VALUES ('acme', 'acme-tickets')`);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await server.close();
  });

  it('is reconciled by the server\'s look-up when the dispatcher died after the call, before its own bookkeeping', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', { faults: { dispatcherCrashInsideTool: [{ decisionIdPrefix: 'crash:' }] }, env: dispatcherEnv });
    const [d] = await h.decisions('mcp-crash', 1, { decisionId: 'crash:mcp', ...ticket('sent, then the dispatcher died') });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');

    await stack.start('dispatcher', 'dispatcher', { env: dispatcherEnv });
    await h.waitUntil('the recovered final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const entry = await entryOf(d.decisionId);
    expect(entry.effectBoundary).toBe('effect_completed');
    const made = server.calls.filter((c) => c.arguments.title === 'sent, then the dispatcher died');
    expect(made).toEqual([{ name: 'create_ticket', arguments: { title: 'sent, then the dispatcher died' }, meta: { 'arvis/idempotency-key': entry.idempotencyKey } }]);
    expect(entry.output?.structuredContent?.ticket).toBe(`T-${server.calls.indexOf(made[0]) + 1}`);
  });

  it('pins the declared tools, offers all but the look-up, and a consented call runs once with its idempotency key in the metadata', async () => {
    const pinned = JSON.parse(readFileSync(snapshot, 'utf8')) as { provider: string; consentKey: string; lookupTool: string; tools: { name: string; inputSchema: unknown }[] };
    expect(pinned).toMatchObject({ provider: 'acme-tickets', consentKey: 'tickets', lookupTool: 'lookup_call' });
    expect(pinned.tools).toEqual(server.tools.map((t) => expect.objectContaining({ name: t.name, inputSchema: t.inputSchema })));
    const [lookup] = await h.decisions('mcp-lookup', 1, { tool: 'tickets.lookup_call', payload: { idempotencyKey: 'k' } });
    await h.client.send([lookup]);
    expect((await h.outcomeOf(lookup.decisionId))[1]).toBe('unknown_tool');

    const [d] = await h.decisions('mcp-call', 1, ticket('printer on fire'));
    await h.client.send([d]);
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const entry = await entryOf(d.decisionId);
    expect(entry.effectBoundary).toBe('effect_completed');
    const made = server.calls.filter((c) => c.arguments.title === 'printer on fire');
    expect(made).toEqual([{ name: 'create_ticket', arguments: { title: 'printer on fire' }, meta: { 'arvis/idempotency-key': entry.idempotencyKey } }]);
    expect(entry.output?.structuredContent?.ticket).toBe(`T-${server.calls.indexOf(made[0]) + 1}`);
  });

  it('is refused before anything is sent for a principal without the consent', async () => {
    const before = server.requests;
    const [d] = await h.decisions('mcp-noconsent', 1, { ...ticket('no consent'), identity: await h.token({ principal: 'bob' }) });
    await h.client.send([d]);
    expect(await h.outcomeOf(d.decisionId)).toEqual(['authorization_refusal', 'consent_required']);
    expect(server.requests).toBe(before);
  });

  it('is refused frozen_surface_diverged, not started, once the server changed the tool schema', async () => {
    const calls = server.calls.length;
    const [tool, lookup] = server.tools;
    server.tools = [{ ...tool, inputSchema: { ...tool.inputSchema, required: ['title', 'priority'] } }, lookup];
    const [d] = await h.decisions('mcp-diverged', 1, ticket('after the change'));
    await h.client.send([d]);
    expect(await h.outcomeOf(d.decisionId)).toEqual(['tool_result', 'frozen_surface_diverged']);
    expect((await entryOf(d.decisionId)).effectBoundary).toBe('effect_not_started');
    expect(server.calls).toHaveLength(calls);
  });
});
