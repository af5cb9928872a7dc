import { join } from 'node:path';
import type { JournalEntry } from '@arvis/contracts';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { exited, Stack } from './support/stack';

const ROOT = join(__dirname, '..');
const FIXTURE = join(ROOT, 'test', 'support', 'tool-packages', 'retry-heartbeat');

// ADR 0077: long.heartbeat has a 1.5 s timeout and a 30 s maximum run time. With a 0.5 s recovery
// grace its stored deadline is 2 s after its start; recovery looks every 200 ms. A body that keeps
// heartbeating runs 4 s and finishes; one that stops after 1 s is ended by its own timeout.
describe('a long body that heartbeats', () => {
  let stack: Stack;
  let h: Harness;
  let dispatcher: RunningApp;
  const RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '200' };
  beforeAll(async () => {
    stack = await Stack.create('heartbeat', { toolPackages: [FIXTURE] });
    await stack.start('authorizer', 'authorizer');
    dispatcher = await stack.start('dispatcher', 'dispatcher', { env: RECOVERY });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const entriesOf = async (decisionId: string) => {
    await h.waitUntil(`${decisionId} to end`, async () => (await h.finalRows([decisionId])).length === 1, 30_000);
    const rows = await h.query<{ entry: string }>('SELECT entry FROM journal WHERE decision_id = $1 ORDER BY journal_seq', [decisionId]);
    return rows.map((r) => JSON.parse(r.entry) as JournalEntry);
  };
  const effectOf = async (decisionId: string) =>
    (await h.query<{ state: string; ran_ms: number; deadline_after_start_ms: number }>(
      `SELECT state, (extract(epoch FROM finished_at - started_at) * 1000)::float8 AS ran_ms,
              (extract(epoch FROM deadline_at - started_at) * 1000)::float8 AS deadline_after_start_ms
       FROM effects WHERE decision_id = $1`,
      [decisionId],
    ))[0];

  it('is not ended by recovery while it heartbeats past its original deadline, and finishes', async () => {
    const [d] = await h.decisions('heartbeat-run-1', 1, { tool: 'long.heartbeat', payload: { runMs: 4000, beatForMs: 4000 } });
    await h.client.send([d]);
    const entries = await entriesOf(d.decisionId);
    expect(entries.map((e) => [e.kind, e.effectBoundary, e.success, e.reasonCode ?? null])).toEqual([['tool_result', 'effect_completed', true, null]]);
    const effect = await effectOf(d.decisionId);
    expect(effect.state).toBe('effect_completed');
    // Past the 2 s it started with: the heartbeats moved it, and the body ran beyond it.
    expect(effect.ran_ms).toBeGreaterThan(2000);
    expect(effect.deadline_after_start_ms).toBeGreaterThan(effect.ran_ms);
  });

  it('is ended as a timeout once it stops heartbeating, not as lost by recovery', async () => {
    const [d] = await h.decisions('heartbeat-run-2', 1, { tool: 'long.heartbeat', payload: { runMs: 20000, beatForMs: 1000 } });
    await h.client.send([d]);
    const [final] = await entriesOf(d.decisionId);
    expect([final.kind, final.effectBoundary, final.reasonCode]).toEqual(['tool_result', 'effect_state_unknown', 'tool_timeout']);
    const effect = await effectOf(d.decisionId);
    expect(effect.state).toBe('effect_state_unknown');
    // Its last written heartbeat moved the deadline past the first 2 s, and the timeout came after it.
    expect(effect.deadline_after_start_ms).toBeGreaterThan(2000);
  });

  // Last: it kills the dispatcher. A dead dispatcher heartbeats no more, so its body's deadline
  // stands where the last heartbeat left it; another dispatcher's recovery ends the effect only
  // past that deadline, as lost during its effect (the marker says it began).
  it('whose dispatcher is killed is recovered only after the deadline its last heartbeat stored', async () => {
    const [d] = await h.decisions('heartbeat-run-3', 1, { tool: 'long.heartbeat', payload: { runMs: 20000, beatForMs: 20000 } });
    await h.client.send([d]);
    const deadline = async () =>
      (await h.query<{ deadline_after_start_ms: number | null; deadline_at: Date | null }>(
        `SELECT (extract(epoch FROM deadline_at - started_at) * 1000)::float8 AS deadline_after_start_ms, deadline_at FROM effects WHERE decision_id = $1`,
        [d.decisionId],
      ))[0];
    await h.waitUntil('a heartbeat to move the deadline', async () => ((await deadline())?.deadline_after_start_ms ?? 0) > 2000, 15_000);
    dispatcher.child.kill('SIGKILL');
    expect(await exited(dispatcher)).toBe('SIGKILL');
    const stored = (await deadline()).deadline_at!;

    await stack.start('dispatcher', 'dispatcher-survivor', { env: RECOVERY });
    const [final] = await entriesOf(d.decisionId);
    expect([final.kind, final.effectBoundary, final.reasonCode]).toEqual(['tool_result', 'effect_state_unknown', 'dispatcher_lost_during_effect']);
    const [row] = await h.query<{ deadline_at: Date; not_before_deadline: boolean }>(
      'SELECT deadline_at, finished_at >= deadline_at AS not_before_deadline FROM effects WHERE decision_id = $1',
      [d.decisionId],
    );
    expect(row.deadline_at).toEqual(stored); // nothing heartbeat after the kill
    expect(row.not_before_deadline).toBe(true);
  });
});
