import { Harness } from './support/harness';
import { Stack } from './support/stack';

describe('an effect whose result cannot be journaled', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('auditgap');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher', {
      faults: { journalResultFails: [{ decisionIdPrefix: 'nojournal:' }] },
      env: { RECOVERY_GRACE_MS: '200', RECOVERY_INTERVAL_MS: '300' },
    });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('marks the run audit-incomplete, visibly, and never refuses the effect after the fact', async () => {
    const [d] = await h.decisions('auditgap-run', 1, { decisionId: 'nojournal:1' });
    await h.client.send([d]);
    await h.waitUntil('the run to be marked', async () => {
      const r = await h.query<{ audit_incomplete: boolean }>('SELECT audit_incomplete FROM runs WHERE run_id = $1', [d.runId]);
      return r[0]?.audit_incomplete === true;
    });
    const entries = await h.query<{ kind: string; effect_boundary: string; reason_code: string; final_decision_id: string | null }>(
      'SELECT kind, effect_boundary, reason_code, final_decision_id FROM journal WHERE decision_id = $1',
      [d.decisionId],
    );
    expect(entries).toEqual([{ kind: 'audit_incomplete', effect_boundary: 'effect_completed', reason_code: 'audit_incomplete', final_decision_id: null }]);
    // Give recovery time to run past the tool's deadline: it must leave the known state alone.
    await new Promise((r) => setTimeout(r, 6000));
    const [fx] = await h.query<{ state: string; notes: string }>(
      `SELECT e.state, (SELECT count(*) FROM notes n WHERE n.capability_id = e.capability_id)::text AS notes
       FROM effects e WHERE e.decision_id = $1`,
      [d.decisionId],
    );
    expect(fx).toEqual({ state: 'effect_completed', notes: '1' });
    const after = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM journal WHERE decision_id = $1', [d.decisionId]);
    expect(after[0].n).toBe('1');
  });
});
