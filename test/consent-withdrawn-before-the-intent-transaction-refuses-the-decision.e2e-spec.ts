import type { PoolClient } from 'pg';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// Issue "harden" item 17: a consent withdrawal that commits after policy has read the gate data
// and before the slice's transaction records the intent must refuse the decision. The spec holds
// the slice at its first inbox read (an ACCESS EXCLUSIVE lock on decision_inbox, which no gate
// read touches), withdraws the consent while it waits, then lets it go on. The old authorizer had
// read consent outside that transaction and minted the intent anyway.
describe('a consent withdrawn before the intent transaction', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('withdrawn');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const mail = (id: string) => h.mailDecision(id, 'withdrawn-run');
  const outcome = (id: string) => h.outcomeOf(id);
  // A backend of the authorizer waiting for the lock at the slice's inbox read.
  const sliceWaitsAtInbox = async () =>
    (
      await h.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM decision_inbox WHERE (decision_id, tenant) IN (%'`,
      )
    )[0].n > 0;

  it('refuses it with consent_required and runs nothing', async () => {
    // acme keeps gate data (alice's consent) after bob's is withdrawn: the refusal is consent_required.
    await h.query("INSERT INTO consent_grants (tenant, principal, consent_key) VALUES ('acme', 'alice', 'email'), ('acme', 'bob', 'email')");
    await h.query("INSERT INTO egress_policies (tenant, provider) VALUES ('acme', 'smtp-relay')");
    const granted = await mail('withdrawn:before');
    await h.client.send([granted]);
    expect(await outcome(granted.decisionId)).toEqual(['tool_result', 'effect_completed']);

    const lock: PoolClient = await h.db.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE decision_inbox IN ACCESS EXCLUSIVE MODE');
      const late = await mail('withdrawn:late');
      await h.client.send([late]);
      await h.waitUntil('the slice to wait at its inbox read', sliceWaitsAtInbox);
      // The withdrawal commits while the slice waits: after any read policy made before it.
      await h.query("DELETE FROM consent_grants WHERE tenant = 'acme' AND principal = 'bob' AND consent_key = 'email'");
      await lock.query('COMMIT');
    } finally {
      lock.release();
    }
    expect(await outcome('withdrawn:late')).toEqual(['authorization_refusal', 'consent_required']);
    const intents = await h.query<{ n: number }>("SELECT count(*)::int AS n FROM intents WHERE decision_id = 'withdrawn:late'");
    expect(intents[0].n).toBe(0);
    const sink = await h.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_sink WHERE tenant = 'acme'");
    expect(sink[0].n).toBe(1);
  });
});
