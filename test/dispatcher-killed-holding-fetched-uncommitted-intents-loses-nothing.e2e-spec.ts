import { createKafka } from '@arvis/kafka';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';

const RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300', TOOL_CONCURRENCY: '2' };
const N = 60;
const CRASH_AT = 32;

// Sixty intents of one run wait on one partition before the dispatcher starts, so its first fetch
// holds all of them; it handles them in slices of five and dies (SIGKILL) inside the tool of the
// 33rd. Whatever it had fetched and not yet committed must reach its successor: every decision
// ends with exactly one final entry, and no tool body runs twice.
describe('a dispatcher killed while holding fetched, uncommitted intents', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('heldfetch');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  /** The dispatcher group's committed offset on each partition of the intents topic (-1: none). */
  async function committed(): Promise<Map<number, bigint>> {
    const admin = createKafka({ brokers: stack.env.brokers, clientId: 'arvis-test-admin' }).admin();
    await admin.connect();
    try {
      const [t] = await admin.fetchOffsets({ groupId: groupOf(stack.env, 'dispatcher'), topics: [h.topics.intents] });
      return new Map(t.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    } finally {
      await admin.disconnect();
    }
  }

  it('lets its successor end every decision exactly once, running nothing twice', async () => {
    const decisions = await h.decisions('heldfetch-run', N);
    decisions[CRASH_AT].decisionId = `crash:heldfetch-${CRASH_AT}`;
    await h.client.send(decisions);
    await h.waitUntil(`${N} intents published`, async () => {
      const [r] = await h.query<{ n: string }>(
        // A published row is deleted (ADR 0048): the intent is there and its outbox row is gone.
        `SELECT count(*)::text AS n FROM intents i
         WHERE i.run_id = $1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position)`,
        ['heldfetch-run'],
      );
      return Number(r.n) === N;
    });
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'crash:', at: 'after_marker', signal: 'SIGKILL' }] },
      env: { ...RECOVERY, CONSUMER_SLICE_SIZE: '5' },
      waitReady: false,
    });
    expect(await exited(dying)).toBe('SIGKILL');

    // It committed the slices it had finished, and nothing of the one it died in or after it.
    const offsets = [...(await committed()).values()].filter((o) => o > 0n);
    expect(offsets).toHaveLength(1);
    expect(offsets[0]).toBeGreaterThan(0n);
    expect(offsets[0]).toBeLessThanOrEqual(BigInt(CRASH_AT));

    await stack.start('dispatcher', 'dispatcher-successor', { env: RECOVERY });
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil(`${N} final entries`, async () => (await h.finalRows(ids)).length === N, 90_000);
    const finals = await h.finalRows(ids);
    expect(new Set(finals.map((f) => f.decision_id)).size).toBe(N);
    const unknown = finals.filter((f) => f.effect_boundary === 'effect_state_unknown');
    const notStarted = finals.filter((f) => f.effect_boundary === 'effect_not_started');
    // Only the bodies in flight at the kill (two at a time) may end unknown; the slice's others
    // never started and are retried; every intent after that slice completes, run by the successor.
    expect(unknown.length).toBeGreaterThanOrEqual(1);
    expect(unknown.length).toBeLessThanOrEqual(2);
    expect(notStarted.length).toBeLessThanOrEqual(4);
    const after = new Set(ids.slice(CRASH_AT + 5));
    expect(finals.filter((f) => after.has(f.decision_id)).map((f) => f.effect_boundary)).toEqual([...after].map(() => 'effect_completed'));

    const twice = await h.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM notes WHERE capability_id IS NOT NULL GROUP BY capability_id HAVING count(*) > 1',
    );
    expect(twice).toEqual([]);
    const [{ n: notes }] = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) JOIN intents i ON i.intent_id = c.intent_id
       WHERE i.run_id = 'heldfetch-run'`,
    );
    // The completed and the unknown (they may have acted); the retries of the never-started are
    // another run's notes. Never more than one per decision.
    expect(Number(notes)).toBeLessThanOrEqual(N);
    expect(Number(notes)).toBeGreaterThanOrEqual(N - unknown.length - notStarted.length);
    expect(await h.journal.waitFor(() => h.journal.finalEntriesFor(ids).size === N, 60_000)).toBe(true);
    expect([...h.journal.finalEntriesFor(ids).values()].filter((es) => es.length !== 1)).toEqual([]);
  });
});
