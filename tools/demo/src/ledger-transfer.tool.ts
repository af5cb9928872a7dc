import { z } from 'zod';
import { defineTool } from '@arvis/tool-sdk';

/**
 * ledger.transfer: irreversible, needs a human confirmation, honours the idempotency key, so
 * one logical action moves money at most once even if presented again with a fresh capability.
 */
export const ledgerTransfer = defineTool({
  name: 'ledger.transfer',
  description: 'Moves money between two accounts of the tenant',
  input: z.strictObject({
    from: z.string().min(1).max(64),
    to: z.string().min(1).max(64),
    amountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3}$/),
    reference: z.string().min(1).max(200),
  }),
  output: z.strictObject({ transferId: z.string(), deduplicated: z.boolean() }),
  idempotent: true,
  retryable: false,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 0.8,
  requiresConfirmation: true,
  auditRequired: true,
  reversible: false,
  manifest: { provider: null, dataEgress: false, dataClass: 'financial', requiredConsent: null },
  // How the console shows it (ADR 0069): 1250000 with EUR is EUR 12,500.00, beside the 1250000 that runs.
  display: { amountMinor: { kind: 'money', currencyField: 'currency' } },
  async execute({ input, effectContext, idempotencyKey, capabilityId, db }) {
    const inserted = await db.query<{ id: string }>(
      `INSERT INTO ledger_transfers (idempotency_key, capability_id, tenant, from_account, to_account, amount_minor, currency)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id::text`,
      [idempotencyKey, capabilityId, effectContext.tenant, input.from, input.to, input.amountMinor, input.currency],
    );
    if (inserted.rows[0]) return { transferId: inserted.rows[0].id, deduplicated: false };
    const prior = await db.query<{ id: string }>('SELECT id::text FROM ledger_transfers WHERE idempotency_key = $1', [idempotencyKey]);
    return { transferId: prior.rows[0].id, deduplicated: true };
  },
  /**
   * The transfer row is written in one statement keyed by the idempotency key: it is there or it
   * is not yet. Not yet is not "none": a body that began may be paused and still book it (ADR 0056).
   */
  async reconcile({ idempotencyKey, db }) {
    const { rows } = await db.query<{ id: string }>('SELECT id::text FROM ledger_transfers WHERE idempotency_key = $1', [idempotencyKey]);
    return rows[0] ? { found: 'completed', output: { transferId: rows[0].id, deduplicated: false } } : { found: 'cannot_tell' };
  },
});
