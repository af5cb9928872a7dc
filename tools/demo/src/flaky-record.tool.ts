import { z } from 'zod';
import { defineTool, type ToolDatabase } from '@arvis/tool-sdk';

const effectOf = (db: ToolDatabase, idempotencyKey: string) =>
  db.query<{ id: string }>('SELECT id::text FROM flaky_effects WHERE idempotency_key = $1', [idempotencyKey]);

/**
 * flaky.record: counts its calls per idempotency key and fails the first `failTimes` of them
 * before acting; its effect is one row per idempotency key (it honours the key). Idempotent and
 * retryable: what retry governance is for.
 */
export const flakyRecord = defineTool({
  name: 'flaky.record',
  description: 'Fails a configured number of times, then records one effect per idempotency key',
  input: z.strictObject({ key: z.string().min(1).max(200), failTimes: z.number().int().min(0).max(5) }),
  output: z.strictObject({ effectId: z.string(), calls: z.number().int() }),
  idempotent: true,
  retryable: true,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  async execute({ input, idempotencyKey, capabilityId, db }) {
    const { rows } = await db.query<{ attempts: number }>(
      `INSERT INTO flaky_attempts (idempotency_key, attempts) VALUES ($1, 1)
       ON CONFLICT (idempotency_key) DO UPDATE SET attempts = flaky_attempts.attempts + 1 RETURNING attempts`,
      [idempotencyKey],
    );
    const calls = rows[0].attempts;
    if (calls <= input.failTimes) throw new Error(`transient failure (call ${calls}), nothing done`);
    await db.query(
      `INSERT INTO flaky_effects (idempotency_key, capability_id) VALUES ($1, $2) ON CONFLICT (idempotency_key) DO NOTHING`,
      [idempotencyKey, capabilityId],
    );
    const effect = await effectOf(db, idempotencyKey);
    return { effectId: effect.rows[0].id, calls };
  },
  /**
   * Its effect is the one row per idempotency key; the call counter is not an effect. No row is
   * not "none": recovery asks only about bodies that began, and a paused one may still write it
   * (ADR 0056; the chaos suite saw two such bodies act after a "none").
   */
  async reconcile({ idempotencyKey, db }) {
    const effect = await effectOf(db, idempotencyKey);
    if (!effect.rows[0]) return { found: 'cannot_tell' };
    const calls = await db.query<{ attempts: number }>('SELECT attempts FROM flaky_attempts WHERE idempotency_key = $1', [idempotencyKey]);
    return { found: 'completed', output: { effectId: effect.rows[0].id, calls: calls.rows[0]?.attempts ?? 1 } };
  },
});
