import type { EffectBoundary } from '@arvis/contracts';
import type { Tx } from '@arvis/persistence';

/** Only these prove the effect did not start; every other state spends the confirmation. */
export const RELEASING_STATES: ReadonlySet<EffectBoundary> = new Set(['pre_effect_refusal', 'effect_not_started']);

/**
 * Finalizes the confirmations reserved by these capabilities, keyed on the effect boundary,
 * never on success: released back to approved before any effect, consumed (single use) once an
 * effect started, failed or is unknown.
 */
export async function finalizeConfirmations(tx: Tx, capabilityIds: string[], states: EffectBoundary[]): Promise<void> {
  if (capabilityIds.length === 0) return;
  await tx.$executeRaw`
    UPDATE confirmations c
    SET status = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN 'approved' ELSE 'consumed' END,
        reserved_by = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN NULL ELSE c.reserved_by END
    FROM unnest(${capabilityIds}::text[], ${states}::text[]) AS v(capability_id, state)
    WHERE c.reserved_by = v.capability_id AND c.status = 'reserved'`;
}
