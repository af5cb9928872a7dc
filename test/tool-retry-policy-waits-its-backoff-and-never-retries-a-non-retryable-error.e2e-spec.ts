import { join } from 'node:path';
import type { JournalEntry } from '@arvis/contracts';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

const ROOT = join(__dirname, '..');
const FIXTURE = join(ROOT, 'test', 'support', 'tool-packages', 'retry-heartbeat');

// ADR 0076: a tool's own retry policy. policy.flaky declares 3 attempts, a first interval of 1 s,
// a coefficient of 2 and `card_declined` as never retried. Each retry's not-before is the failure
// it answers (its effect's finished_at: the same transaction's now()) plus the backoff; no retry
// starts before it. A non-retryable error ends the action at once. No timing is asserted beyond
// the stored times.
describe('a tool retry policy', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('retrypolicy', { toolPackages: [FIXTURE] });
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const entryOf = async (decisionId: string) => {
    await h.waitUntil(`${decisionId} to end`, async () => (await h.finalRows([decisionId])).length === 1);
    const [r] = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE final_decision_id = $1', [decisionId]);
    return JSON.parse(r.entry) as JournalEntry;
  };
  const retriesOf = (chain: string) =>
    h.query<{ decision_id: string; attempt: number; after_failure_ms: number; submitted_on_time: boolean; started_on_time: boolean }>(
      `SELECT r.decision_id, r.attempt,
              (extract(epoch FROM r.not_before - parent.finished_at) * 1000)::float8 AS after_failure_ms,
              r.submitted_at >= r.not_before AS submitted_on_time,
              (SELECT e.started_at >= r.not_before FROM effects e WHERE e.decision_id = r.decision_id) AS started_on_time
       FROM retries r JOIN effects parent ON parent.decision_id = r.parent_decision_id
       WHERE r.chain_id = $1 ORDER BY r.attempt`,
      [chain],
    );

  it('stores not-before times 1 s and 2 s after each failure, and starts no attempt before its not-before', async () => {
    const [d] = await h.decisions('policy-run-1', 1, { tool: 'policy.flaky', payload: { failTimes: 2, failWith: 'transient' } });
    await h.client.send([d]);
    const first = await entryOf(d.decisionId);
    expect([first.effectBoundary, first.reasonCode, first.error?.details]).toEqual(['effect_failed', 'tool_execution_failed', { toolErrorCode: 'upstream_busy' }]);
    await h.waitUntil('two retries', async () => (await retriesOf(d.decisionId)).length === 2);
    const [r1, r2] = await retriesOf(d.decisionId);
    expect((await entryOf(r1.decision_id)).effectBoundary).toBe('effect_failed');
    const last = await entryOf(r2.decision_id);
    expect([last.effectBoundary, last.success, last.output]).toEqual(['effect_completed', true, { calls: 3 }]);
    expect(await retriesOf(d.decisionId)).toEqual([
      { decision_id: r1.decision_id, attempt: 1, after_failure_ms: 1000, submitted_on_time: true, started_on_time: true },
      { decision_id: r2.decision_id, attempt: 2, after_failure_ms: 2000, submitted_on_time: true, started_on_time: true },
    ]);
  });

  it('waits no longer than its maximum interval once the backoff passes it', async () => {
    const [d] = await h.decisions('policy-run-4', 1, { tool: 'policy.capped', payload: { failTimes: 3, failWith: 'transient' } });
    await h.client.send([d]);
    await h.waitUntil('three retries', async () => (await retriesOf(d.decisionId)).length === 3);
    const third = (await retriesOf(d.decisionId))[2];
    expect((await entryOf(third.decision_id)).output).toEqual({ calls: 4 });
    expect((await retriesOf(d.decisionId)).map((r) => [r.attempt, r.after_failure_ms, r.submitted_on_time, r.started_on_time])).toEqual([
      [1, 200, true, true],
      [2, 600, true, true], // 200 x 5 = 1000, capped
      [3, 600, true, true], // 200 x 25 = 5000, capped
    ]);
  });

  it('ends at once on an error code its policy names, and on a NonRetryableToolError', async () => {
    const [declined] = await h.decisions('policy-run-2', 1, { tool: 'policy.flaky', payload: { failTimes: 1, failWith: 'declined' } });
    const [final] = await h.decisions('policy-run-3', 1, { tool: 'policy.flaky', payload: { failTimes: 1, failWith: 'final' } });
    await h.client.send([declined, final]);
    const a = await entryOf(declined.decisionId);
    const b = await entryOf(final.decisionId);
    expect([a.effectBoundary, a.reasonCode, a.error?.details]).toEqual(['effect_failed', 'tool_execution_failed', { toolErrorCode: 'card_declined' }]);
    expect([b.effectBoundary, b.reasonCode, b.error?.details]).toEqual(['effect_failed', 'tool_execution_failed', { toolErrorCode: 'account_closed', nonRetryable: true }]);
    // A retry would have been requested in the transaction that recorded the failure.
    expect(await h.query('SELECT decision_id FROM retries WHERE chain_id = ANY($1)', [[declined.decisionId, final.decisionId]])).toEqual([]);
  });
});
