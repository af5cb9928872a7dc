import { Client } from 'pg';
import { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { countedTx } from './support/raw-sql';
import type { Tx } from '@arvis/persistence';

// Activation (binding the receipt) and consumption are one conditional UPDATE (ADR 0050). What
// activation guaranteed must still hold: one receipt activates at most one capability, and only
// a minted capability can be won. The UPDATE binds only the receipt of the capability's own
// intent; no unique index on the bound receipt backs it any more (ADR 0048, 2026-12-03).
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
    // Each capability's intent, holding its receipt r-<n> (only what the statement reads is meaningful).
    await c.query(`INSERT INTO intents (intent_id, decision_id, capability_id, run_id, causal_id, tenant, principal, tool, process_id,
        payload_canonical, payload_sha256, effect_context, effect_context_commitment, idempotency_key, catalog_fingerprint,
        intent_commitment, receipt_id, durable_position, store_fingerprint, committed_at)
      SELECT 'i-' || g, 'd-' || g, 'cap-' || g, 'run', 'c-' || g, 't', 'p', 'notes.append', 'proc', '{}', 'x', '{}', 'x', 'k-' || g, 'x',
             'x', 'r-' || g, g, 'store', now() FROM generate_series(1, 6) g`);
  });
  afterAll(() => c?.end());

  const inTx = <T>(fn: (tx: Tx) => Promise<T>) => countedTx(c, fn);
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

  it('binds no receipt but the capability\'s own intent\'s: another capability\'s receipt, or one no intent holds, moves nothing', async () => {
    // r-1 is cap-1's (bound above): cap-3 may not take it.
    expect((await inTx((tx) => store.activateAndConsume(tx, [{ capabilityId: 'cap-3', receiptId: 'r-1' }], 'disp-b'))).result).toEqual(new Set());
    expect(await row('cap-3')).toEqual({ state: 'minted', bound_receipt_id: null, consumed_by: null, activated: false });
    expect((await inTx((tx) => store.activateAndConsume(tx, [{ capabilityId: 'cap-3', receiptId: 'r-none' }], 'disp-b'))).result).toEqual(new Set());
    expect((await row('cap-3')).state).toBe('minted');
    // The same receipt presented for two capabilities in one batch: only its own intent's capability takes it.
    const { result } = await inTx((tx) => store.activateAndConsume(tx, [{ capabilityId: 'cap-4', receiptId: 'r-4' }, { capabilityId: 'cap-5', receiptId: 'r-4' }], 'disp-b'));
    expect([...result]).toEqual(['cap-4']);
    expect(await row('cap-4')).toEqual({ state: 'consumed', bound_receipt_id: 'r-4', consumed_by: 'disp-b', activated: true });
    expect(await row('cap-5')).toEqual({ state: 'minted', bound_receipt_id: null, consumed_by: null, activated: false });
    const twice = await c.query(`SELECT bound_receipt_id FROM capabilities WHERE bound_receipt_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1`);
    expect(twice.rows).toEqual([]);
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
