import { Client, Pool } from 'pg';
import { EffectStore } from '@arvis/lifecycle';
import { inPgTransaction, insertParts, rowsPart, type Tx } from '@arvis/persistence';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { countedTx } from './support/raw-sql';

// ADR 0083: the authorizer's slice inserts its intents, capabilities, inbox and outbox rows with
// one statement. Fewer round trips must not loosen anything: each part's count is checked and a
// part that fails fails the whole statement. A group's close and its waiters' close stay two
// statements, for the reason the last case shows.
describe('a slice inserts its tables with one statement; a waiter claimed during its holder\'s close is closed', () => {
  let env: TestEnvironment;
  let c: Client;
  const effects = new EffectStore();

  beforeAll(async () => {
    env = await createEnvironment('onestatement');
    c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    await c.query('CREATE TABLE part_a (id text PRIMARY KEY, n bigint)');
    await c.query('CREATE TABLE part_b (id text PRIMARY KEY, ok boolean)');
  });
  afterAll(() => c?.end());

  const inTx = <T>(fn: (tx: Tx) => Promise<T>) => countedTx(c, fn);
  const count = async (table: string) => Number((await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`)).rows[0].n);

  it('inserts several tables\' rows with one statement and checks every part', async () => {
    const a = rowsPart('part_a', { id: ['text', (r: { id: string }) => r.id], n: ['bigint', () => 7n] }, [{ id: 'a1' }, { id: 'a2' }]);
    const b = rowsPart('part_b', { id: ['text', (r: { id: string }) => r.id], ok: ['boolean', () => true] }, [{ id: 'b1' }]);
    const empty = rowsPart('part_b', { id: ['text', (r: { id: string }) => r.id] }, []);
    const { statements } = await inTx((tx) => insertParts(tx, [a, empty, b]));
    expect(statements).toBe(1);
    expect(await count('part_a')).toBe(2);
    expect(await count('part_b')).toBe(1);
  });

  it('inserts nothing of any part when one part fails', async () => {
    const a = rowsPart('part_a', { id: ['text', (r: { id: string }) => r.id] }, [{ id: 'a3' }]);
    // b1 is taken: this part's unique key refuses it, and the statement with it.
    const b = rowsPart('part_b', { id: ['text', (r: { id: string }) => r.id] }, [{ id: 'b2' }, { id: 'b1' }]);
    await expect(inTx((tx) => insertParts(tx, [a, b]))).rejects.toThrow(/part_b_pkey/);
    expect(await count('part_a')).toBe(2);
    expect(await count('part_b')).toBe(1);
  });

  it('closes a waiter whose claim committed while the holder\'s close waited for the holder\'s row', async () => {
    // A duplicate's claim locks its holder's row (FOR UPDATE) and inserts itself waiting for it; the
    // holder's close, started meanwhile, waits for that lock. Its waiters must be looked for by a
    // statement that starts after the close moved the holder: one statement's snapshot, taken before
    // the claim committed, would not see the waiter, which would then wait for ever (seen when the
    // two updates were one statement, ADR 0083: three-relays-fail-over-and-keep-run-order timed out).
    await c.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, live_key, state, dispatcher_id, started_at)
      VALUES ('h9', 'i-h9', 'd-h9', 'k9', true, 'k9', 'effect_started', 'x', now())`);
    const claimer = new Client({ connectionString: env.databaseUrl });
    await claimer.connect();
    try {
      await claimer.query('BEGIN');
      await claimer.query(`SELECT 1 FROM effects WHERE live_key = 'k9' FOR UPDATE`);
      await claimer.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, state, waits_for, dispatcher_id)
        VALUES ('w9', 'i-w9', 'd-w9', 'k9', false, 'effect_waiting', 'h9', 'x')`);
      // The holder's close, as CloseEffectsService runs it: the results' statement, then the waiters'.
      const closing = inTx(async (tx) => {
        const moved = await effects.finish(tx, [{ capabilityId: 'h9', state: 'effect_completed', reasonCode: null }]);
        return { moved, waiters: await effects.closeWaiters(tx, [{ capabilityId: 'h9', state: 'effect_completed' }]) };
      });
      // The close is waiting for the claim's lock on h9.
      await new Promise((r) => setTimeout(r, 300));
      await claimer.query('COMMIT');
      const { result } = await closing;
      expect([...result.moved]).toEqual(['h9']);
      expect(result.waiters).toEqual([{ capabilityId: 'w9', holderCapabilityId: 'h9', state: 'effect_completed' }]);
    } finally {
      await claimer.end();
    }
    expect((await c.query(`SELECT state, reason_code FROM effects WHERE capability_id = 'w9'`)).rows).toEqual([{ state: 'effect_completed', reason_code: 'deduplicated' }]);
  });

  /** A holder started, and a claim that locks it and inserts its waiter, committed when `commit` is called. */
  async function holderWithWaiterClaiming(n: number): Promise<{ commit: () => Promise<void> }> {
    await c.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, live_key, state, dispatcher_id, started_at)
      VALUES ('h${n}', 'i-h${n}', 'd-h${n}', 'k${n}', true, 'k${n}', 'effect_started', 'x', now())`);
    const claimer = new Client({ connectionString: env.databaseUrl });
    await claimer.connect();
    await claimer.query('BEGIN');
    await claimer.query(`SELECT 1 FROM effects WHERE live_key = 'k${n}' FOR UPDATE`);
    await claimer.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, state, waits_for, dispatcher_id)
      VALUES ('w${n}', 'i-w${n}', 'd-w${n}', 'k${n}', false, 'effect_waiting', 'h${n}', 'x')`);
    return {
      commit: async () => {
        await claimer.query('COMMIT');
        await claimer.end();
      },
    };
  }

  it('closes that waiter too when the close and the waiters\' statement are issued together and share a round trip (ADR 0090)', async () => {
    // One connection, so the warm-up leaves both statements prepared on it and the race's two go pipelined.
    const pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const close = (id: string) =>
      inPgTransaction(pool, 10_000, async (tx) => {
        const [moved, waiters] = await Promise.all([
          effects.finish(tx, [{ capabilityId: id, state: 'effect_completed', reasonCode: null }]),
          effects.closeWaiters(tx, [{ capabilityId: id, state: 'effect_completed' }]),
        ]);
        return { moved, waiters };
      });
    try {
      await close('nobody');
      await close('nobody');
      const claim = await holderWithWaiterClaiming(10);
      const closing = close('h10');
      await new Promise((r) => setTimeout(r, 300));
      await claim.commit();
      const result = await closing;
      expect([...result.moved]).toEqual(['h10']);
      expect(result.waiters).toEqual([{ capabilityId: 'w10', holderCapabilityId: 'h10', state: 'effect_completed' }]);
    } finally {
      await pool.end();
    }
    expect((await c.query(`SELECT state, reason_code FROM effects WHERE capability_id = 'w10'`)).rows).toEqual([{ state: 'effect_completed', reason_code: 'deduplicated' }]);
  });

  it('leaves the waiters of a holder another closing moved first, in another state, to that closing', async () => {
    // The waiters' statement goes out before the caller knows which holders its close moved: a
    // holder recovery had already called unknown did not move, and its waiters are not given the
    // late result the body reported.
    const claim = await holderWithWaiterClaiming(11);
    await claim.commit();
    await c.query(`UPDATE effects SET state = 'effect_state_unknown', reason_code = 'dispatcher_lost_during_effect', finished_at = now() WHERE capability_id = 'h11'`);
    const { result } = await inTx(async (tx) => ({
      moved: await effects.finish(tx, [{ capabilityId: 'h11', state: 'effect_completed', reasonCode: null }]),
      waiters: await effects.closeWaiters(tx, [{ capabilityId: 'h11', state: 'effect_completed' }]),
    }));
    expect([...result.moved]).toEqual([]);
    expect(result.waiters).toEqual([]);
    expect((await c.query(`SELECT state FROM effects WHERE capability_id = 'w11'`)).rows).toEqual([{ state: 'effect_waiting' }]);
    // Its own closing (the state it has) closes them.
    const { result: own } = await inTx((tx) => effects.closeWaiters(tx, [{ capabilityId: 'h11', state: 'effect_state_unknown' }]));
    expect(own).toEqual([{ capabilityId: 'w11', holderCapabilityId: 'h11', state: 'effect_state_unknown' }]);
  });
});
