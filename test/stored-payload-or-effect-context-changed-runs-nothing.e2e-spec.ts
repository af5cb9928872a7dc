import { VerifyJournalService } from '../apps/cli/src/verify-journal/verify-journal.service';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// The intents row is what the dispatcher hands a tool. Its payload and effect context are
// changed in the database while no dispatcher runs, their hash columns left as they were: the
// dispatcher must recompute both against the committed hashes and refuse, never run "evil".
describe('a stored intent whose payload or effect context was changed after commit', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('tamperintent');
    await stack.start('authorizer', 'authorizer', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('revokes the capability as capability_activation_failed and runs no tool', async () => {
    const [payload, context, intact] = await h.decisions('tamperintent-run', 3);
    await h.client.send([payload, context, intact]);
    await h.waitUntil('three intents recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE run_id = $1', [payload.runId]);
      return r.n === '3';
    });
    const p = await h.db.query(`UPDATE intents SET payload_canonical = '{"ref":"x","text":"evil"}' WHERE decision_id = $1`, [payload.decisionId]);
    const c = await h.db.query(
      `UPDATE intents SET effect_context = jsonb_set(effect_context::jsonb, '{principal}', '"mallory"') WHERE decision_id = $1`,
      [context.decisionId],
    );
    expect([p.rowCount, c.rowCount]).toEqual([1, 1]);

    await stack.start('dispatcher', 'dispatcher');
    const ids = [payload.decisionId, context.decisionId, intact.decisionId];
    await h.waitUntil('three final entries', async () => (await h.finalRows(ids)).length === 3);
    const rows = new Map((await h.finalRows(ids)).map((r) => [r.decision_id, [r.effect_boundary, r.reason_code]]));
    expect(rows.get(payload.decisionId)).toEqual(['pre_effect_refusal', 'capability_activation_failed']);
    expect(rows.get(context.decisionId)).toEqual(['pre_effect_refusal', 'capability_activation_failed']);
    expect(rows.get(intact.decisionId)).toEqual(['effect_completed', null]);
    const notes = await h.query<{ text: string; principal: string }>(
      'SELECT n.text, n.principal FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1)',
      [ids],
    );
    expect(notes).toEqual([{ text: 'note 2', principal: 'alice' }]);
    const caps = await h.query<{ decision_id: string; state: string }>(
      'SELECT decision_id, state FROM capabilities WHERE decision_id = ANY($1) ORDER BY decision_id',
      [[payload.decisionId, context.decisionId]],
    );
    expect(caps.map((r) => r.state)).toEqual(['revoked', 'revoked']);
  });

  // The refusal was right, so the analyst's verify must not page anyone: a tool_result for a
  // revoked capability is consistent when it is the refusal of that revocation (same reason
  // code, nothing started). Before, verify reported "capability … is revoked, not consumed".
  it('verifies clean afterwards, and still finds a result that claims an effect for a capability never consumed', async () => {
    const verify = () => new VerifyJournalService(h.db).verify();
    const clean = await verify();
    expect([clean.intact, clean.bijections.findings]).toEqual([true, []]);

    // A revoked capability whose journaled result says the tool ran: that is a break.
    const [done] = await h.query<{ capability_id: string }>(
      `SELECT c.capability_id FROM capabilities c JOIN journal j ON j.result_capability_id = c.capability_id
       WHERE c.state = 'consumed' AND j.effect_boundary = 'effect_completed' LIMIT 1`,
    );
    await h.db.query(`UPDATE capabilities SET state = 'revoked', revoked_reason = 'capability_activation_failed' WHERE capability_id = $1`, [done.capability_id]);
    const broken = await verify();
    expect(broken.intact).toBe(false);
    expect(broken.bijections.findings).toEqual([expect.objectContaining({ check: 'result_without_intent', message: expect.stringContaining(`capability ${done.capability_id} is revoked, not consumed`) })]);
  });
});
