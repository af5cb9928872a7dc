import { Injectable } from '@nestjs/common';
import { ToolDatabase } from './tool-database';
import { markBodyStart, type Reconciliation, type ToolBody, type ToolInvocation } from './tool-body';

/**
 * Demo tool: an irreversible transfer that honours the idempotency key, so one logical action
 * moves money at most once even if it is presented again with a fresh capability.
 */
@Injectable()
export class LedgerTransferTool implements ToolBody {
  readonly name = 'ledger.transfer';

  constructor(private readonly db: ToolDatabase) {}

  async execute({ payload, effectContext, idempotencyKey, capabilityId }: ToolInvocation): Promise<{ transferId: string; deduplicated: boolean }> {
    await markBodyStart(this.db, this.name, capabilityId);
    const inserted = await this.db.query<{ id: string }>(
      `INSERT INTO ledger_transfers (idempotency_key, capability_id, tenant, from_account, to_account, amount_minor, currency)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id::text`,
      [idempotencyKey, capabilityId, effectContext.tenant, payload['from'], payload['to'], payload['amountMinor'], payload['currency']],
    );
    if (inserted.rows[0]) return { transferId: inserted.rows[0].id, deduplicated: false };
    const prior = await this.db.query<{ id: string }>('SELECT id::text FROM ledger_transfers WHERE idempotency_key = $1', [idempotencyKey]);
    return { transferId: prior.rows[0].id, deduplicated: true };
  }

  /** The transfer row is written in one statement keyed by the idempotency key: it is there or it is not. */
  async reconcile({ idempotencyKey }: { idempotencyKey: string }): Promise<Reconciliation> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id::text FROM ledger_transfers WHERE idempotency_key = $1', [idempotencyKey]);
    return rows[0] ? { found: 'completed', output: { transferId: rows[0].id, deduplicated: false } } : { found: 'none' };
  }
}
