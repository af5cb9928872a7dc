import { Injectable } from '@nestjs/common';
import type { EffectBoundary } from '@arvis/contracts';
import type { Sql } from './sql';

/** Only these prove the effect did not start; every other state spends the confirmation. */
export const RELEASING_STATES: ReadonlySet<EffectBoundary> = new Set(['pre_effect_refusal', 'effect_not_started']);

/** Writes to `confirmations` made once a capability that reserved one reaches a final state. */
@Injectable()
export class ConfirmationStore {
  /**
   * Keyed on the effect boundary, never on success: released back to approved before any effect,
   * consumed (single use) once an effect started, failed or is unknown. Not every capability
   * reserved a confirmation, so the row count is at most the number given.
   */
  async finalize(tx: Sql, capabilityIds: readonly string[], states: readonly EffectBoundary[]): Promise<number> {
    if (capabilityIds.length === 0) return 0;
    const moved = await tx.$executeRaw`
      UPDATE confirmations c
      SET status = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN 'approved' ELSE 'consumed' END,
          reserved_by = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN NULL ELSE c.reserved_by END
      FROM unnest(${[...capabilityIds]}::text[], ${[...states]}::text[]) AS v(capability_id, state)
      WHERE c.reserved_by = v.capability_id AND c.status = 'reserved'`;
    if (moved > capabilityIds.length) throw new Error(`finalized ${moved} confirmations for ${capabilityIds.length} capabilities`);
    return moved;
  }
}
