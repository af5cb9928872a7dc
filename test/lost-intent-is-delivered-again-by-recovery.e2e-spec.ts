import { Harness } from './support/harness';
import { Stack } from './support/stack';

// An accepted intent whose message never reached a dispatcher (here: its outbox row marked
// published without being sent) is delivered again by recovery, as the same signed message:
// one capability, one effect.
describe('an accepted intent that was never consumed', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('redeliver');
    await stack.start('authorizer', 'authorizer', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('is delivered again by recovery and runs once, with its one capability', async () => {
    const [d] = await h.decisions('redeliver-run', 1);
    await h.client.send([d]);
    await h.waitUntil('the intent to be recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE decision_id = $1', [d.decisionId]);
      return r.n === '1';
    });
    // The message is "lost": its row is gone as if published (ADR 0048), nothing was sent.
    const lost = await h.db.query(
      `DELETE FROM outbox o USING intents i WHERE i.decision_id = $1 AND o.seq = i.durable_position AND o.published_at IS NULL`,
      [d.decisionId],
    );
    expect(lost.rowCount).toBe(1);

    await stack.start('dispatcher', 'dispatcher', { env: { REDELIVER_AFTER_MS: '1000', RECOVERY_INTERVAL_MS: '300' } });
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0].effect_boundary).toBe('effect_completed');
    const [row] = await h.query<{ capabilities: string; notes: string; redelivered: boolean }>(
      `SELECT (SELECT count(*) FROM capabilities WHERE decision_id = $1)::text AS capabilities,
              (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1)::text AS notes,
              (SELECT last_delivered_at IS NOT NULL FROM intents WHERE decision_id = $1) AS redelivered`,
      [d.decisionId],
    );
    expect(row).toEqual({ capabilities: '1', notes: '1', redelivered: true });
  });
});
