import type { PoolClient } from 'pg';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// ADR 0084: every writer takes the journal heads in its transaction's last statements, so whoever
// holds a head waits for no other lock. The authorizer's slice used to lock the heads (for its
// refusals' entries) before its insert of intents, capabilities, inbox and outbox rows: a slice
// whose insert waited for another transaction's lock held the head meanwhile, and that other
// transaction, wanting the head in turn, deadlocked with it. The spec plays that other writer:
// it holds a lock the slice's insert needs (capabilities, which the slice's read does not touch),
// waits until the slice waits for it, then asks for the heads itself.
describe('an authorizer slice that waits for a lock', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('headlast');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  // A backend of the authorizer waiting for a lock on a relation (the capabilities table).
  const sliceWaitsForALock = async () =>
    (
      await h.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND wait_event = 'relation'`,
      )
    )[0].n > 0;

  it('holds no journal head meanwhile: a writer holding that lock takes the head, and both decisions end once', async () => {
    const [allowed] = await h.decisions('headlast-run', 1);
    // Above notes.append's maximum risk: refused by policy, so the slice appends a journal entry.
    const [refused] = await h.decisions('headlast-run', 1, { decisionId: 'headlast-run:refused', riskScore: 0.9 });

    const writer: PoolClient = await h.db.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE capabilities IN SHARE ROW EXCLUSIVE MODE');
      await h.client.send([allowed, refused]);
      await h.waitUntil('the slice to wait for the capabilities lock', sliceWaitsForALock);
      // Past the slice's one deadlock check (deadlock_timeout, 1 s), so that a cycle, if we close
      // one, is found by our own check and fails us, not the slice (which would just retry).
      await new Promise((r) => setTimeout(r, 1500));
      // With the head taken first, this waited for the slice and the slice for us: PostgreSQL
      // broke the cycle by failing this statement with "deadlock detected".
      await writer.query("SET LOCAL lock_timeout = '20s'");
      const heads = await writer.query('SELECT shard FROM journal_head FOR UPDATE');
      expect(heads.rowCount).toBeGreaterThan(0);
      await writer.query('COMMIT');
    } catch (e) {
      await writer.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      writer.release();
    }

    expect(await h.outcomeOf(refused.decisionId)).toEqual(['authorization_refusal', 'risk_exceeded']);
    await h.waitUntil('the allowed decision to be recorded as an intent', async () => {
      const [n] = await h.query<{ n: number }>('SELECT count(*)::int AS n FROM intents WHERE decision_id = $1', [allowed.decisionId]);
      return n.n === 1;
    });
    const [deadlocks] = await h.query<{ n: string }>('SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()');
    expect(deadlocks.n).toBe('0');
  });
});
