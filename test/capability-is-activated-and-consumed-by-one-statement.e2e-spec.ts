import { Client } from 'pg';
import { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { rawSql } from './support/raw-sql';
import type { Tx } from '@arvis/persistence';

// Activation (binding the receipt) and consumption are one conditional UPDATE (ADR 0050). What
// activation guaranteed must still hold: one receipt activates at most one capability, and only
// a minted capability can be won.
describe('a capability activated and consumed by one statement', () => {
  let env: TestEnvironment;
  let c: Client;
  // Every store method used here takes its transaction; the confirmation store's own client is never reached.
  const store = new CapabilityStore(new ConfirmationStore(undefined as never));

  beforeAll(async () => {
    env = await createEnvironment('oneupdate');
    c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    await c.query(`INSERT INTO capabilities (capability_id, decision_id, intent_id, state, commitment)
      SELECT 'cap-' || g, 'd-' || g, 'i-' || g, 'minted', 'x' FROM generate_series(1, 6) g`);
  });
  afterAll(() => c?.end());

  /** Runs `fn` in a transaction on `c`, counting the statements it sends. */
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
  const row = async (id: string) =>
    (await c.query<{ state: string; bound_receipt_id: string | null; consumed_by: string | null; activated: boolean }>(
      `SELECT state, bound_receipt_id, consumed_by, activated_at IS NOT NULL AND activated_at = consumed_at AS activated FROM capabilities WHERE capability_id = $1`,
      [id],
    )).rows[0];

  it('consumes minted capabilities in one statement, binding each receipt and stamping activation', async () => {
    const { result, statements } = await inTx((tx) =>
      store.activateAndConsume(tx, [{ capabilityId: 'cap-1', receiptId: 'r-1' }, { capabilityId: 'cap-2', receiptId: 'r-2' }], 'disp-a'),
    );
    expect([...result].sort()).toEqual(['cap-1', 'cap-2']);
    expect(statements).toBe(1);
    expect(await row('cap-1')).toEqual({ state: 'consumed', bound_receipt_id: 'r-1', consumed_by: 'disp-a', activated: true });
    expect(await row('cap-2')).toEqual({ state: 'consumed', bound_receipt_id: 'r-2', consumed_by: 'disp-a', activated: true });
  });

  it('refuses a receipt already bound to another capability: nothing is consumed and the capability stays minted', async () => {
    await expect(inTx((tx) => store.activateAndConsume(tx, [{ capabilityId: 'cap-3', receiptId: 'r-1' }], 'disp-b'))).rejects.toThrow(/bound_receipt/);
    expect(await row('cap-3')).toEqual({ state: 'minted', bound_receipt_id: null, consumed_by: null, activated: false });
    // The same receipt twice in one batch: at most one capability may take it, so the batch fails whole.
    await expect(
      inTx((tx) => store.activateAndConsume(tx, [{ capabilityId: 'cap-4', receiptId: 'r-4' }, { capabilityId: 'cap-5', receiptId: 'r-4' }], 'disp-b')),
    ).rejects.toThrow(/bound_receipt/);
    expect((await row('cap-4')).state).toBe('minted');
    expect((await row('cap-5')).state).toBe('minted');
  });

  it('wins only minted capabilities: one consumed or revoked is not won again', async () => {
    await c.query(`UPDATE capabilities SET state = 'revoked', revoked_reason = 'frozen_surface_diverged' WHERE capability_id = 'cap-6'`);
    const { result } = await inTx((tx) =>
      store.activateAndConsume(tx, [{ capabilityId: 'cap-1', receiptId: 'r-1' }, { capabilityId: 'cap-6', receiptId: 'r-6' }, { capabilityId: 'cap-3', receiptId: 'r-3' }], 'disp-c'),
    );
    expect([...result]).toEqual(['cap-3']);
    expect(await row('cap-1')).toEqual({ state: 'consumed', bound_receipt_id: 'r-1', consumed_by: 'disp-a', activated: true });
    expect((await row('cap-6')).state).toBe('revoked');
  });
});
