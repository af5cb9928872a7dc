import { Client } from 'pg';
import { EffectStore } from '@arvis/lifecycle';
import { insertParts, rowsPart, type Tx } from '@arvis/persistence';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { rawSql } from './support/raw-sql';

// ADR 0083: the authorizer's slice inserts its intents, capabilities, inbox and outbox rows with
// one statement, and the dispatcher closes a group's results and their waiting duplicates with one.
// Fewer round trips must not loosen anything: each part's count is checked, a part that fails
// fails the whole statement, and a waiter closes only for a holder that moved and holds its key.
describe('a slice writes its tables, and a group closes its waiters, in one statement each', () => {
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

  /** Runs `fn` in a transaction on `c`, counting the statements it sends; rolls back on a throw. */
  const inTx = async <T>(fn: (tx: Tx) => Promise<T>): Promise<{ result: T; statements: number }> => {
    let statements = 0;
    const tx = rawSql((t, v) => {
      statements++;
      return c.query(t, v);
    }) as unknown as Tx;
    await c.query('BEGIN');
    try {
      const result = await fn(tx);
      await c.query('COMMIT');
      return { result, statements };
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    }
  };
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

  it('closes a group and the waiters of its key holders with one statement, and no waiter of a holder that did not move or holds no key', async () => {
    // h1, h2, h3 started; h4 still pending (recovery's or nobody's to close). w1..w4 wait for them.
    await c.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, live_key, state, dispatcher_id, started_at)
      VALUES ('h1', 'i-h1', 'd-h1', 'k1', true, 'k1', 'effect_started', 'x', now()),
             ('h2', 'i-h2', 'd-h2', 'k2', true, 'k2', 'effect_started', 'x', now()),
             ('h3', 'i-h3', 'd-h3', 'k3', true, 'k3', 'effect_started', 'x', now()),
             ('h4', 'i-h4', 'd-h4', 'k4', true, 'k4', 'effect_pending', 'x', NULL)`);
    await c.query(`INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, state, waits_for, dispatcher_id)
      SELECT 'w' || g, 'i-w' || g, 'd-w' || g, 'k' || g, false, 'effect_waiting', 'h' || g, 'x' FROM generate_series(1, 4) g`);
    const { result, statements } = await inTx((tx) =>
      effects.finishWithWaiters(tx, [
        { capabilityId: 'h1', state: 'effect_completed', reasonCode: null, holdsKey: true },
        { capabilityId: 'h2', state: 'effect_failed', reasonCode: 'tool_execution_failed', holdsKey: true },
        // Told it holds no key: its waiter is left to the statement that knows (closeWaiters).
        { capabilityId: 'h3', state: 'effect_completed', reasonCode: null, holdsKey: false },
        { capabilityId: 'h4', state: 'effect_completed', reasonCode: null, holdsKey: true },
      ]),
    );
    expect(statements).toBe(1);
    expect([...result.finished].sort()).toEqual(['h1', 'h2', 'h3']);
    expect(result.waiters.sort((x, y) => x.capabilityId.localeCompare(y.capabilityId))).toEqual([
      { capabilityId: 'w1', holderCapabilityId: 'h1', state: 'effect_completed' },
      { capabilityId: 'w2', holderCapabilityId: 'h2', state: 'effect_not_started' },
    ]);
    const rows = (await c.query<{ capability_id: string; state: string; reason_code: string | null; closed: boolean }>(
      `SELECT capability_id, state, reason_code, finished_at IS NOT NULL AS closed FROM effects WHERE capability_id LIKE 'w%' ORDER BY 1`,
    )).rows;
    expect(rows).toEqual([
      { capability_id: 'w1', state: 'effect_completed', reason_code: 'deduplicated', closed: true },
      { capability_id: 'w2', state: 'effect_not_started', reason_code: 'idempotency_key_in_use', closed: true },
      { capability_id: 'w3', state: 'effect_waiting', reason_code: null, closed: false },
      { capability_id: 'w4', state: 'effect_waiting', reason_code: null, closed: false },
    ]);
  });
});
