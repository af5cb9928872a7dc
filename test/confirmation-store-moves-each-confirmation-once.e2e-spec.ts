import { Pool } from 'pg';
import { ConfirmationNotReservable, ConfirmationStore, type ParkRequest } from '@arvis/lifecycle';
import type { Database, Tx } from '@arvis/persistence';
import { createEnvironment } from './support/environment';
import { rawSql, sqlOn } from './support/raw-sql';

/** A pool as the store's Prisma client, with transactions. */
function overPg(pool: Pool) {
  return {
    ...rawSql((t, v) => pool.query(t, v)),
    tx: async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(sqlOn(client));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      } finally {
        client.release();
      }
    },
  };
}

// The one writer of `confirmations`, against PostgreSQL: every transition is one statement
// guarded by the state it leaves, so a second attempt changes nothing and says so.
describe('the confirmation store moves each confirmation once', () => {
  let pool: Pool;
  let prisma: ReturnType<typeof overPg>;
  let store: ConfirmationStore;
  const alice = { tenant: 'acme', principal: 'alice', issuer: 'https://idp.example' };
  const carol = { tenant: 'acme', principal: 'carol', issuer: 'https://idp.example' };
  const request = (decisionId: string): ParkRequest => ({ decisionId, ...alice, tool: 'ledger.transfer', payloadSha256: 'p'.repeat(64) });
  const rowOf = async (decisionId: string) =>
    (await pool.query<{ confirmation_id: string; status: string; reserved_by: string | null }>('SELECT * FROM confirmations WHERE decision_id = $1', [decisionId])).rows[0];
  const idOf = async (decisionId: string) => (await rowOf(decisionId)).confirmation_id;
  const statusOf = async (decisionId: string) => (await rowOf(decisionId)).status;

  beforeAll(async () => {
    const env = await createEnvironment('confstore');
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    prisma = overPg(pool);
    store = new ConfirmationStore(prisma as unknown as Database);
    await prisma.tx((tx) => store.park(tx, ['s:1', 's:2', 's:3', 's:4', 's:5'].map(request), 60_000));
  });
  afterAll(() => pool?.end());

  it('parks one pending confirmation per decision', async () => {
    expect((await pool.query("SELECT count(*)::int AS n FROM confirmations WHERE status = 'pending'")).rows[0].n).toBe(5);
  });

  it('approves once, only for another principal of the tenant; a second decision changes nothing', async () => {
    const id = await idOf('s:1');
    expect(await store.approve(id, alice, 60_000)).toBeNull(); // own request
    expect(await store.approve(id, { ...carol, tenant: 'other' }, 60_000)).toBeNull();
    expect(await store.approve(id, carol, 60_000)).not.toBeNull();
    expect([await store.approve(id, carol, 60_000), await store.deny(id, carol)]).toEqual([null, null]);
    expect(await statusOf('s:1')).toBe('approved');
  });

  it('reserves an approved confirmation for exactly its action, once, all or nothing', async () => {
    const id = await idOf('s:1');
    const ask = { confirmationId: id, capabilityId: 'cap-1', tool: 'ledger.transfer', payloadSha256: 'p'.repeat(64), ...alice };
    await expect(prisma.tx((tx) => store.reserve(tx, [{ ...ask, payloadSha256: 'q'.repeat(64) }]))).rejects.toBeInstanceOf(ConfirmationNotReservable);
    await expect(prisma.tx((tx) => store.reserve(tx, [ask, { ...ask, capabilityId: 'cap-2' }]))).rejects.toBeInstanceOf(ConfirmationNotReservable);
    expect(await statusOf('s:1')).toBe('approved'); // the failed attempts rolled back whole
    await prisma.tx((tx) => store.reserve(tx, [ask]));
    expect((await rowOf('s:1')).reserved_by).toBe('cap-1');
    await expect(prisma.tx((tx) => store.reserve(tx, [{ ...ask, capabilityId: 'cap-3' }]))).rejects.toThrow('could not be reserved');
  });

  it('closes a denied confirmation and expires an overdue one, each once', async () => {
    await pool.query(`INSERT INTO decision_inbox (decision_id, tenant, run_id, causal_id, tool, body_sha256, body, status)
      SELECT d, 'acme', 'r', 'c', 'ledger.transfer', 'h', '{}', 'parked' FROM unnest(ARRAY['s:2','s:3','s:4']) AS d`);
    expect(await store.deny(await idOf('s:2'), carol)).toMatchObject({ decisionId: 's:2', runId: 'r', causalId: 'c', principal: 'alice' });
    await pool.query(`UPDATE confirmations SET expires_at = now() - interval '1 second' WHERE decision_id = 's:3'`);
    const closed = await prisma.tx((tx) => store.expireAndCloseDenied(tx));
    expect(closed.map((c) => [c.decisionId, c.status]).sort()).toEqual([['s:2', 'denied'], ['s:3', 'expired']]);
    expect(await prisma.tx((tx) => store.expireAndCloseDenied(tx))).toEqual([]);
    expect(await statusOf('s:4')).toBe('pending');
  });

  it('claims approved confirmations for resumption all or nothing', async () => {
    const id = await idOf('s:4');
    await expect(prisma.tx((tx) => store.claimForResume(tx, [id]))).rejects.toThrow('claimed 0 of 1'); // still pending
    expect(await store.approve(id, carol, 60_000)).not.toBeNull();
    await prisma.tx((tx) => store.claimForResume(tx, [id]));
    await expect(prisma.tx((tx) => store.claimForResume(tx, [id]))).rejects.toThrow('claimed 0 of 1');
  });

  it('lets a second worker skip, not wait for, a confirmation the first has locked for resumption', async () => {
    const id = await idOf('s:5');
    expect(await store.approve(id, carol, 60_000)).not.toBeNull();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first: Set<string> | undefined;
    const firstWorker = prisma.tx(async (tx) => {
      first = await store.lockForResume(tx, [id]);
      await held;
      await store.claimForResume(tx, [...first]);
    });
    while (first === undefined) await new Promise((r) => setTimeout(r, 20));
    const second = await prisma.tx((tx) => store.lockForResume(tx, [id]));
    expect([[...first], [...second]]).toEqual([[id], []]);
    release();
    await firstWorker;
    expect(await prisma.tx((tx) => store.lockForResume(tx, [id]))).toEqual(new Set());
  });
});
