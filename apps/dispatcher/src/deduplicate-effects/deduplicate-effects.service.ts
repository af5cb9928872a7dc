import { Injectable, Logger } from '@nestjs/common';
import type { EffectBoundary, JournalEntry } from '@arvis/contracts';
import { toolResultEntry, type JournalDraft, type ResultFields } from '@arvis/journal';
import { ConfirmationStore, EffectStore, type DuplicateClaim } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import { storedFactsOf } from '../dispatch-intents/stored-facts';
import { RequestRetriesService } from '../request-retries/request-retries.service';

/** A holder's outcome, as its duplicates take it. */
export interface HolderOutcome {
  capabilityId: string;
  decisionId: string;
  result: ResultFields;
}

const NOT_RUN: ResultFields = {
  effectBoundary: 'effect_not_started',
  success: false,
  reasonCode: 'idempotency_key_in_use',
  error: { code: 'idempotency_key_in_use', message: 'another decision with this idempotency key held it, and its effect did not happen; nothing ran' },
};

/**
 * One effect per logical action. A decision whose idempotency key another live effect holds
 * never runs its tool: it ends with the holder's outcome (marked deduplicatedOf), at once if the
 * holder has one, or when the holder's result is recorded. If the holder's effect did not happen,
 * the duplicate ends not run and is retried: a retry may then take the key.
 */
@Injectable()
export class DeduplicateEffectsService {
  private readonly log = new Logger(DeduplicateEffectsService.name);

  constructor(
    private readonly effects: EffectStore,
    private readonly confirmations: ConfirmationStore,
    private readonly retries: RequestRetriesService,
  ) {}

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
    await this.confirmations.finalize(tx, shared.map((s) => s.capabilityId), shared.map((s) => s.holderState as EffectBoundary));
    await this.confirmations.finalize(tx, released.map((r) => r.capabilityId), released.map(() => 'effect_not_started'));
    await this.retries.request(tx, released.map((r) => facts.get(r.capabilityId)!));
    return [
      ...shared.map((s) =>
        toolResultEntry(facts.get(s.capabilityId)!, {
          ...(outcomes.get(s.holderCapabilityId!) ?? unjournaled(s.holderState as EffectBoundary)),
          deduplicatedOf: s.holderDecisionId!,
        }),
      ),
      ...released.map((r) => toolResultEntry(facts.get(r.capabilityId)!, NOT_RUN)),
    ];
  }

  /** Closes the duplicates waiting for these holders, in the holders' transaction. */
  async closeWaiters(tx: Tx, holders: readonly HolderOutcome[]): Promise<JournalDraft[]> {
    const closed = await this.effects.closeWaiters(tx, holders.map((h) => ({ capabilityId: h.capabilityId, state: h.result.effectBoundary })));
    if (closed.length === 0) return [];
    const byHolder = new Map(holders.map((h) => [h.capabilityId, h]));
    const facts = await storedFactsOf(tx, closed.map((c) => c.capabilityId));
    await this.confirmations.finalize(tx, closed.map((c) => c.capabilityId), closed.map((c) => c.state));
    const notRun = closed.filter((c) => c.state === 'effect_not_started').map((c) => facts.get(c.capabilityId)!);
    await this.retries.request(tx, notRun);
    return closed.map((c) => {
      const holder = byHolder.get(c.holderCapabilityId)!;
      const result = c.state === 'effect_not_started' ? NOT_RUN : holder.result;
      return toolResultEntry(facts.get(c.capabilityId)!, { ...result, deduplicatedOf: holder.decisionId });
    });
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
