import { retryDecisionId, type JournalEntry } from '@arvis/contracts';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// Retry governance: a retry is a row, then a new decision through the whole path, with a fresh
// capability and the same idempotency key; each attempt has its own final entry.
describe('a failed effect is retried as a new decision', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('retry');
    await stack.start('authorizer', 'authorizer', { env: { RETRY_POLL_MS: '200' } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const entries = async (chain: string) =>
    (await h.query<{ entry: string; hash: string }>(
      `SELECT entry, hash FROM journal WHERE decision_id = $1 OR decision_id IN (SELECT decision_id FROM retries WHERE chain_id = $1)
       ORDER BY journal.journal_seq`,
      [chain],
    )).map((r) => JSON.parse(r.entry) as JournalEntry);
  // The system derives a retry's id (ADR 0012); a spec learns it from the retries table.
  const retryIds = async (chain: string, n: number) => {
    await h.waitUntil(`${n} retries of ${chain}`, async () => (await h.query('SELECT 1 FROM retries WHERE chain_id = $1', [chain])).length >= n);
    return (await h.query<{ decision_id: string }>('SELECT decision_id FROM retries WHERE chain_id = $1 ORDER BY attempt', [chain])).map((r) => r.decision_id);
  };

  it('runs the retry after one failure: two final entries, two capabilities, one key, one effect', async () => {
    const [d] = await h.decisions('retry-run-1', 1, { tool: 'flaky.record', payload: { key: 'once', failTimes: 1 } });
    await h.client.send([d]);
    const [retryId] = await retryIds(d.decisionId, 1);
    expect(retryId).toBe(retryDecisionId(d.decisionId, 1));
    await h.waitUntil('both attempts to end', async () => (await h.finalRows([d.decisionId, retryId])).length === 2);

    const [first, second] = await entries(d.decisionId);
    expect([first.decisionId, first.effectBoundary, first.reasonCode]).toEqual([d.decisionId, 'effect_failed', 'tool_execution_failed']);
    expect([second.decisionId, second.effectBoundary, second.success]).toEqual([retryId, 'effect_completed', true]);
    expect(second.retry).toEqual({ attempt: 1, chainId: d.decisionId, parentCausalId: d.causalId });
    expect(second.causalId).not.toBe(first.causalId);
    expect(second.runId).toBe(first.runId);
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
    expect(second.capabilityId).not.toBe(first.capabilityId);
    const [fx] = await h.query<{ effects: string; calls: string }>(
      `SELECT (SELECT count(*) FROM flaky_effects WHERE idempotency_key = $1)::text AS effects,
              (SELECT attempts FROM flaky_attempts WHERE idempotency_key = $1)::text AS calls`,
      [first.idempotencyKey],
    );
    expect(fx).toEqual({ effects: '1', calls: '2' });
  });

  it('stops at three attempts in all, each with its own final entry', async () => {
    const [d] = await h.decisions('retry-run-2', 1, { tool: 'flaky.record', payload: { key: 'never', failTimes: 5 } });
    await h.client.send([d]);
    const ids = [d.decisionId, ...(await retryIds(d.decisionId, 2))];
    await h.waitUntil('three attempts to end', async () => (await h.finalRows(ids)).length === 3);
    // Give the worker time to (wrongly) submit a fourth.
    await new Promise((r) => setTimeout(r, 2000));
    const all = await entries(d.decisionId);
    expect(all.map((e) => [e.decisionId, e.effectBoundary])).toEqual(ids.map((id) => [id, 'effect_failed']));
    const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM retries WHERE chain_id = $1', [d.decisionId]);
    expect(r.n).toBe('2');
  });

  it('derives retry ids within the contract from the longest decision ids', async () => {
    const [d] = await h.decisions('retry-run-4', 1, { tool: 'flaky.record', payload: { key: 'long', failTimes: 1 } });
    d.decisionId = `long-${'x'.repeat(195)}`;
    await h.client.send([d]);
    const [retryId] = await retryIds(d.decisionId, 1);
    await h.waitUntil('both attempts to end', async () => (await h.finalRows([d.decisionId, retryId])).length === 2);
    expect(retryId.length).toBeLessThanOrEqual(200);
    expect(retryId).toBe(retryDecisionId(d.decisionId, 1));
    expect((await entries(d.decisionId)).map((e) => [e.decisionId, e.effectBoundary])).toEqual([
      [d.decisionId, 'effect_failed'],
      [retryId, 'effect_completed'],
    ]);
  });

  it('does not retry a decision above the risk threshold', async () => {
    const [d] = await h.decisions('retry-run-3', 1, { tool: 'flaky.record', payload: { key: 'risky', failTimes: 1 }, riskScore: 0.7 });
    await h.client.send([d]);
    await h.waitUntil('the attempt to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    await new Promise((r) => setTimeout(r, 2000));
    const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM retries WHERE chain_id = $1', [d.decisionId]);
    expect(r.n).toBe('0');
    expect((await entries(d.decisionId)).map((e) => e.effectBoundary)).toEqual(['effect_failed']);
  });
});
