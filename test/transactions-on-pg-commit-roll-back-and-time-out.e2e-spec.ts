import { Pool } from 'pg';
import { inPgTransaction, TransactionTimeoutError } from '@arvis/persistence';

// The hot path's transactions run on pg directly (ADR 0044); what they promise is what the
// database sees, so it is checked on the suite's PostgreSQL, in scratch tables.
const url = 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('a transaction on pg directly', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: url, max: 2 });
  });
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
