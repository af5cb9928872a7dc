import { Injectable, Logger } from '@nestjs/common';
import type { EffectBoundary, JournalEntry } from '@arvis/contracts';
import type { JournalDraft, ResultFields } from '@arvis/journal';
import type { DuplicateClaim } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import { CloseEffectsService, NOT_RUN } from '../../outcomes/close-effects/close-effects.service';
import { storedFactsOf } from '../../intake/dispatch-intents/stored-facts';

/**
 * One effect per logical action. A decision whose idempotency key another live effect holds
 * never runs its tool: it ends with the holder's outcome (marked deduplicatedOf), at once if the
 * holder has one, or when the holder's result is recorded. If the holder's effect did not happen,
 * the duplicate ends not run and is retried: a retry may then take the key.
 */
@Injectable()
export class DeduplicateEffectsService {
  private readonly log = new Logger(DeduplicateEffectsService.name);

  constructor(private readonly closings: CloseEffectsService) {}

  /**
   * Final entries for duplicates whose holder already ended (they take its outcome) or released
   * the key without an effect (they end not run, and are retried); the others wait for their holder.
   */
  async settleDuplicates(tx: Tx, duplicates: readonly DuplicateClaim[]): Promise<JournalDraft[]> {
    const shared = duplicates.filter((d) => d.holderState === 'effect_completed' || d.holderState === 'effect_state_unknown');
    const released = duplicates.filter((d) => d.holderState === 'released');
    const waiting = duplicates.length - shared.length - released.length;
    if (waiting > 0) this.log.log({ msg: 'duplicates wait for the effect holding their key', count: waiting });
    if (shared.length + released.length === 0) return [];
    const outcomes = await this.journaledOutcomes(tx, shared.map((s) => s.holderCapabilityId!));
    const facts = await storedFactsOf(tx, [...shared, ...released].map((s) => s.capabilityId));
    return this.closings.settleDuplicates(tx, [
      ...shared.map((s) => ({
        facts: facts.get(s.capabilityId)!,
        result: { ...(outcomes.get(s.holderCapabilityId!) ?? unjournaled(s.holderState as EffectBoundary)), deduplicatedOf: s.holderDecisionId! },
      })),
      ...released.map((r) => ({ facts: facts.get(r.capabilityId)!, result: NOT_RUN })),
    ]);
  }

  private async journaledOutcomes(tx: Tx, capabilityIds: readonly string[]): Promise<Map<string, ResultFields>> {
    const rows = await tx.$queryRaw<{ result_capability_id: string; entry: string }[]>`
      SELECT result_capability_id, entry FROM journal
      WHERE result_capability_id = ANY(${[...capabilityIds]}::text[]) AND final_decision_id IS NOT NULL`;
    return new Map(
      rows.map((r) => {
        const e = JSON.parse(r.entry) as JournalEntry;
        const { effectBoundary, success, reasonCode, output, error, latencyMs } = e;
        return [r.result_capability_id, { effectBoundary, success, reasonCode, output, error, latencyMs }];
      }),
    );
  }
}

/** The holder's effect ended but its result was never journaled (audit-incomplete). */
function unjournaled(boundary: EffectBoundary): ResultFields {
  return { effectBoundary: boundary, success: false, reasonCode: 'audit_incomplete', error: { code: 'audit_incomplete', message: 'the first effect\'s result was not journaled' } };
}
