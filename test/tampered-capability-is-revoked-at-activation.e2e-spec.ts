import { Harness } from './support/harness';
import { Stack } from './support/stack';

// A capability row changed between minting and activation (here: its snapshot now claims a
// confirmation) no longer matches its commitment: the dispatcher revokes it and the decision
// ends in capability_activation_failed; the tool never runs.
describe('a tampered capability', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('tampercap');
    // No relay yet: the intents wait in the outbox while the row is tampered with.
    await stack.start('authorizer', 'authorizer', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('is revoked at activation and journaled once as capability_activation_failed', async () => {
    const [tampered, intact] = await h.decisions('tampercap-run', 2);
    await h.client.send([tampered, intact]);
    await h.waitUntil('both intents recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE run_id = $1', [tampered.runId]);
      return r.n === '2';
    });
    const changed = await h.db.query(
      `UPDATE capabilities SET snapshot = replace(snapshot, '"confirmed":false', '"confirmed":true') WHERE decision_id = $1`,
      [tampered.decisionId],
    );
    expect(changed.rowCount).toBe(1);

    await stack.start('dispatcher', 'dispatcher');
    await h.waitUntil('both final entries', async () => (await h.finalRows([tampered.decisionId, intact.decisionId])).length === 2);
    const rows = new Map((await h.finalRows([tampered.decisionId, intact.decisionId])).map((r) => [r.decision_id, r]));
    expect([rows.get(tampered.decisionId)?.effect_boundary, rows.get(tampered.decisionId)?.reason_code]).toEqual([
      'pre_effect_refusal',
      'capability_activation_failed',
    ]);
    expect(rows.get(intact.decisionId)?.effect_boundary).toBe('effect_completed');
    const [c] = await h.query<{ state: string; effects: string; notes: string }>(
      `SELECT c.state, (SELECT count(*) FROM effects e WHERE e.capability_id = c.capability_id)::text AS effects,
              (SELECT count(*) FROM notes n WHERE n.capability_id = c.capability_id)::text AS notes
       FROM capabilities c WHERE c.decision_id = $1`,
      [tampered.decisionId],
    );
    expect(c).toEqual({ state: 'revoked', effects: '0', notes: '0' });
  });
});
