import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { ROOT, type RunningApp } from './support/services';
import { Stack } from './support/stack';

const journalSchema = new Ajv2020({ strict: true }).compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'journal-entry.schema.json'), 'utf8')));

// GET /decisions/{id} on the authorizer's API (ADR 0072): a producer reads its own decision's final
// entry with the token it sent the decision with; a decision of another tenant or principal answers
// as one that does not exist, even with the same id; ?waitS= long-polls, capped.
describe('a producer reads its own result by the API, never another tenant\'s', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('results-api');
    authorizer = await stack.start('authorizer', 'authorizer', { env: { RESULT_POLL_MS: '100', RESULT_WAIT_MAX_S: '20' } });
    await stack.start('dispatcher', 'dispatcher');
    h = new Harness(stack.env);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const get = async (id: string, token: string | undefined, query = '') => {
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/decisions/${encodeURIComponent(id)}${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status, body: (await res.json()) as { status?: string; error?: string; entry?: Record<string, unknown> } };
  };
  const decision = (id: string, identity: string, over: Partial<DecisionInput> = {}): DecisionInput => ({
    decisionId: id,
    runId: `run-${id}`,
    causalId: 'c1',
    tool: 'notes.append',
    payload: { text: `note ${id}` },
    riskScore: 0.1,
    identity,
    ...over,
  });

  it('a long poll started before the decision is sent answers with its final entry, which the published schema accepts', async () => {
    const alice = await h.token({ principal: 'alice', tenant: 'acme' });
    const id = `api-${Date.now()}-d1`;
    const polled = get(id, alice, '?waitS=20');
    await new Promise((r) => setTimeout(r, 300));
    await h.client.send([decision(id, alice)]);
    const { status, body } = await polled;
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'final', decisionId: id, entry: { decisionId: id, tenant: 'acme', principal: 'alice', kind: 'tool_result', success: true } });
    expect(journalSchema(body.entry) ? 'valid' : journalSchema.errors).toBe('valid');
    // The same entry as the table's final row: its hash is the chain's.
    const [row] = await h.query<{ hash: string }>('SELECT hash FROM journal WHERE final_decision_id = $1 AND tenant = $2', [id, 'acme']);
    expect(body.entry!.hash).toBe(row.hash);
  });

  it('another tenant, another principal of the tenant, or no token: not found or unauthenticated, never the entry', async () => {
    const alice = await h.token({ principal: 'alice', tenant: 'acme' });
    const id = `api-${Date.now()}-d2`;
    await h.client.send([decision(id, alice)]);
    expect((await get(id, alice, '?waitS=20')).status).toBe(200);
    const globexAlice = await h.token({ principal: 'alice', tenant: 'globex' });
    const acmeBob = await h.token({ principal: 'bob', tenant: 'acme' });
    expect(await get(id, globexAlice)).toEqual({ status: 404, body: expect.objectContaining({ error: 'not_found' }) });
    expect(await get(id, acmeBob)).toEqual({ status: 404, body: expect.objectContaining({ error: 'not_found' }) });
    // Waiting does not help either: a decision of another principal is answered at once.
    const started = Date.now();
    expect((await get(id, acmeBob, '?waitS=10')).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await get(id, undefined)).status).toBe(401);
    expect((await get(id, alice, '?waitS=soon')).status).toBe(400);

    // globex sends a decision with the same id: each tenant reads its own.
    await h.client.send([decision(id, globexAlice, { payload: { text: 'globex note' } })]);
    const theirs = await get(id, globexAlice, '?waitS=20');
    expect(theirs.body.entry).toMatchObject({ tenant: 'globex', decisionId: id });
    expect((await get(id, alice)).body.entry).toMatchObject({ tenant: 'acme', decisionId: id });
    expect(theirs.body.entry!.hash).not.toBe((await get(id, alice)).body.entry!.hash);
  });

  it('a parked decision is pending (202) until its wait ends; an unknown id is not found after the wait', async () => {
    const alice = await h.token({ principal: 'alice', tenant: 'acme' });
    const id = `api-${Date.now()}-parked`;
    await h.client.send([
      decision(id, alice, { tool: 'ledger.transfer', payload: { from: 'a-1', to: 'a-2', amountMinor: 100, currency: 'EUR', reference: id } }),
    ]);
    await h.waitUntil('the transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [id])).length === 1);
    const started = Date.now();
    const pending = await get(id, alice, '?waitS=1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(pending).toEqual({ status: 202, body: { status: 'pending', decisionId: id } });
    expect((await get(`api-${Date.now()}-never-sent`, alice, '?waitS=1')).status).toBe(404);
  });
});
