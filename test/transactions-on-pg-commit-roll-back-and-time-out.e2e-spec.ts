import { Pool, type PoolClient } from 'pg';
import { inPgTransaction, TransactionTimeoutError } from '@arvis/persistence';

// The hot path's transactions run on pg directly (ADR 0044); what they promise is what the
// database sees, so it is checked on the suite's PostgreSQL, in scratch tables.
const url = 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('a transaction on pg directly', () => {
  let pool: Pool;
  /** ReadyForQuery messages the pool's connections received: one per round trip. */
  let roundTrips = 0;
  beforeAll(() => {
    pool = new Pool({ connectionString: url, max: 2 });
    pool.on('connect', (c: PoolClient) => (c as unknown as { connection: NodeJS.EventEmitter }).connection.on('readyForQuery', () => roundTrips++));
  });
  const trips = async (fn: () => Promise<unknown>): Promise<number> => {
    const before = roundTrips;
    await fn();
    return roundTrips - before;
  };
  afterAll(async () => {
    await pool.end();
  });

  it('reads bigint as BigInt and timestamps as Date, like the Prisma client, and binds tagged values as parameters', async () => {
    const rows = await inPgTransaction(pool, 5000, (tx) =>
      tx.$queryRaw<{ n: bigint; ns: bigint[]; t: Date; s: string }[]>`SELECT ${'9007199254740993'}::bigint AS n, ARRAY[1, 2]::bigint[] AS ns, now() AS t, ${"it's"}::text AS s`,
    );
    expect(rows).toEqual([{ n: 9007199254740993n, ns: [1n, 2n], t: expect.any(Date), s: "it's" }]);
  });

  it('commits what the callback wrote, and rolls back everything when it throws', async () => {
    const table = `tx_spec_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int)`);
    try {
      await inPgTransaction(pool, 5000, (tx) => tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, 1));
      await expect(
        inPgTransaction(pool, 5000, async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, 2);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect((await pool.query(`SELECT array_agg(v ORDER BY v) AS vs FROM ${table}`)).rows[0].vs).toEqual([1]);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });

  it('sends BEGIN with the first statement once that statement is prepared on the connection: one round trip fewer', async () => {
    const table = `tx_spec_b_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int)`);
    const pair = (v: number) =>
      inPgTransaction(pool, 5000, async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, v);
        return tx.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE v <= $1`, v);
      });
    try {
      // Each of the pool's two connections parses the statements once (BEGIN apart: 4 round trips).
      const first = [await trips(() => pair(1)), await trips(() => pair(2))];
      const later = [await trips(() => pair(3)), await trips(() => pair(4)), await trips(() => pair(5))];
      expect(Math.max(...first)).toBeLessThanOrEqual(4);
      expect(later).toEqual([3, 3, 3]);
      await expect(pair(6)).resolves.toEqual([{ n: 6 }]);
      expect((await pool.query(`SELECT array_agg(v ORDER BY v) AS vs FROM ${table}`)).rows[0].vs).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });

  it('rolls back when the statement sent with BEGIN fails, and the connection goes on with that statement prepared', async () => {
    const table = `tx_spec_f_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int PRIMARY KEY)`);
    const insert = (v: number) => inPgTransaction(pool, 5000, (tx) => tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, v));
    try {
      // Parsed on both connections first, so the failing statements below go with their BEGIN.
      await Promise.all([insert(1), insert(2)]);
      for (let i = 0; i < 4; i++) await expect(insert(1)).rejects.toThrow(/duplicate key/);
      await expect(
        inPgTransaction(pool, 5000, async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, 3);
          await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, 2);
        }),
      ).rejects.toThrow(/duplicate key/);
      await Promise.all([insert(4), insert(5)]);
      expect((await pool.query(`SELECT array_agg(v ORDER BY v) AS vs FROM ${table}`)).rows[0].vs).toEqual([1, 2, 4, 5]);
      // Nothing left open: every connection is idle, outside a transaction.
      const open = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'postgres' AND state LIKE 'idle in transaction%'`);
      expect(open.rows[0].n).toBe(0);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });

  it('sends statements issued before any is awaited in one round trip once they are prepared, each with its own answer, in the order issued', async () => {
    const table = `tx_spec_p_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int)`);
    // A write whose answer is wanted later, then a read that must see it: issued together.
    const together = (v: number) =>
      inPgTransaction(pool, 5000, async (tx) => {
        const written = tx.$executeRawUnsafe(`INSERT INTO ${table} SELECT g FROM generate_series($1::int, $1::int + 1) g`, v);
        const seen = tx.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE v >= $1`, v);
        return [await written, await seen];
      });
    try {
      const first = [await trips(() => together(10)), await trips(() => together(20))];
      const later = [await trips(() => together(30)), await trips(() => together(40))];
      // Before: BEGIN with the INSERT, the SELECT, the COMMIT (3); now the INSERT, the SELECT and BEGIN go as one (2).
      expect(Math.max(...first)).toBeLessThanOrEqual(4);
      expect(later).toEqual([2, 2]);
      await expect(together(50)).resolves.toEqual([2, [{ n: 2 }]]);
      expect((await pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(10);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });

  it('fails every statement of a round trip when one of them fails, rolls back, and loses no unawaited rejection', async () => {
    const table = `tx_spec_q_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int PRIMARY KEY)`);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const pairOf = (a: number, b: number, awaitFirst: boolean) =>
      inPgTransaction(pool, 5000, async (tx) => {
        const first = tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, a);
        const second = tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES ($1)`, b);
        if (awaitFirst) await first;
        return second;
      });
    try {
      // Both connections parse the INSERT first.
      await Promise.all([pairOf(1, 2, true), pairOf(3, 4, true)]);
      // The first fails: the second (sent with it) fails too, and neither stays.
      await expect(pairOf(1, 5, true)).rejects.toThrow(/duplicate key/);
      // The first fails and is never awaited: the error still ends the transaction, and is handled.
      await expect(pairOf(3, 6, false)).rejects.toThrow(/duplicate key|current transaction is aborted/);
      // The second fails: the first, which succeeded on the server, is rolled back with it.
      await expect(pairOf(7, 2, true)).rejects.toThrow(/duplicate key/);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      expect((await pool.query(`SELECT array_agg(v ORDER BY v) AS vs FROM ${table}`)).rows[0].vs).toEqual([1, 2, 3, 4]);
      const open = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'postgres' AND state LIKE 'idle in transaction%'`);
      expect(open.rows[0].n).toBe(0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await pool.query(`DROP TABLE ${table}`);
    }
  });

  it('opens no transaction for a callback that runs no statement', async () => {
    expect(await trips(() => inPgTransaction(pool, 5000, async () => 'nothing'))).toBe(0);
  });

  it('rolls back a transaction that outlives its timeout, with an error the consumers wait out', async () => {
    const table = `tx_spec_t_${process.pid}`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (v int)`);
    try {
      const slow = inPgTransaction(pool, 100, async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES (1)`);
        await new Promise((r) => setTimeout(r, 300));
      });
      await expect(slow).rejects.toBeInstanceOf(TransactionTimeoutError);
      expect((await pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });
});
