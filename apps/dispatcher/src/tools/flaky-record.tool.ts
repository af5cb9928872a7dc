import { Injectable } from '@nestjs/common';
import { ToolDatabase } from './tool-database';
import { markBodyStart, type Reconciliation, type ToolBody, type ToolInvocation } from './tool-body';

/**
 * Demo tool for retries: counts its calls per idempotency key and fails the first `failTimes`
 * of them before acting; its effect is one row per idempotency key (it honours the key).
 */
@Injectable()
export class FlakyRecordTool implements ToolBody {
  readonly name = 'flaky.record';

  constructor(private readonly db: ToolDatabase) {}

  async execute({ payload, idempotencyKey, capabilityId }: ToolInvocation): Promise<{ effectId: string; calls: number }> {
    await markBodyStart(this.db, this.name, capabilityId);
    const { rows } = await this.db.query<{ attempts: number }>(
      `INSERT INTO flaky_attempts (idempotency_key, attempts) VALUES ($1, 1)
       ON CONFLICT (idempotency_key) DO UPDATE SET attempts = flaky_attempts.attempts + 1 RETURNING attempts`,
      [idempotencyKey],
    );
    const calls = rows[0].attempts;
    if (calls <= Number(payload['failTimes'])) throw new Error(`transient failure (call ${calls}), nothing done`);
    await this.db.query(
      `INSERT INTO flaky_effects (idempotency_key, capability_id) VALUES ($1, $2) ON CONFLICT (idempotency_key) DO NOTHING`,
      [idempotencyKey, capabilityId],
    );
    const effect = await this.db.query<{ id: string }>('SELECT id::text FROM flaky_effects WHERE idempotency_key = $1', [idempotencyKey]);
    return { effectId: effect.rows[0].id, calls };
  }

  /** Its effect is the one row per idempotency key; the call counter is not an effect. */
  async reconcile({ idempotencyKey }: { idempotencyKey: string }): Promise<Reconciliation> {
    const effect = await this.db.query<{ id: string }>('SELECT id::text FROM flaky_effects WHERE idempotency_key = $1', [idempotencyKey]);
    if (!effect.rows[0]) return { found: 'none' };
    const calls = await this.db.query<{ attempts: number }>('SELECT attempts FROM flaky_attempts WHERE idempotency_key = $1', [idempotencyKey]);
    return { found: 'completed', output: { effectId: effect.rows[0].id, calls: calls.rows[0]?.attempts ?? 1 } };
  }
}
