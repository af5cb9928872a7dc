import { Harness } from './support/harness';
import { Stack } from './support/stack';

// A genuine intent minted against a catalog the dispatcher does not accept (its own fingerprint
// plus ACCEPTED_CATALOG_FINGERPRINTS): the decision ends, once, with frozen_surface_diverged.
describe('an intent minted against a catalog the dispatcher does not accept', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('catalogskew');
    await stack.start('authorizer', 'authorizer', { faults: { authorizerCatalogSkew: true } });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('runs nothing, revokes the capability and journals one final frozen_surface_diverged entry', async () => {
    const decisions = await h.decisions('catalogskew-run', 3);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 3);
    const rows = await h.finalRows(ids);
    expect(rows.map((r) => [r.kind, r.effect_boundary, r.reason_code])).toEqual(
      Array(3).fill(['tool_result', 'pre_effect_refusal', 'frozen_surface_diverged']),
    );
    const [c] = await h.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM capabilities WHERE decision_id = ANY($1) AND state = 'revoked')::text AS revoked,
              (SELECT count(*) FROM effects WHERE decision_id = ANY($1))::text AS effects,
              (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS notes`,
      [ids],
    );
    expect(c).toEqual({ revoked: '3', effects: '0', notes: '0' });
  });
});
