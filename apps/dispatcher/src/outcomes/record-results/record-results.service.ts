import { Inject, Injectable, Logger } from '@nestjs/common';
import { appendJournal, lateToolResultEntry, type JournalDraft } from '@arvis/journal';
import { EffectStore } from '@arvis/lifecycle';
import { Database, type Tx } from '@arvis/persistence';
import { retryWhileTransient, someIds } from '@arvis/runtime';
import { CloseEffectsService, type EffectClosing } from '../close-effects/close-effects.service';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import { factsOf } from '../../intake/dispatch-intents/claimed-intent';
import { ResultRecorder, type RanIntent } from './result-recorder';

const closingOf = (r: RanIntent): EffectClosing => ({
  facts: factsOf(r.claimed),
  result: r.result,
  confirmationReserved: r.claimed.confirmationReserved,
  holdsKey: r.claimed.holdsKey,
});

/**
 * The effects already happened, so their results are never dropped: recording waits out a
 * database outage with backoff (up to the configured bound, minutes), and a result that fails
 * for any other reason is isolated by halving its group, so one entry that cannot be journaled
 * does not spoil the others. Only that one is then marked audit-incomplete. Bound as the
 * ResultRecorder; the test profile binds FailingResultRecorder (fault-points/) instead, which
 * extends this class and overrides its one seam, `closeWithResults`. Nothing here consults a
 * fault list.
 */
@Injectable()
export class RecordResultsService extends ResultRecorder {
  private readonly log = new Logger(RecordResultsService.name);

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly effects: EffectStore,
    private readonly closings: CloseEffectsService,
  ) {
    super();
  }

  override async record<T>(ran: readonly RanIntent[], alsoInTransaction?: (tx: Tx) => Promise<T>): Promise<T | undefined> {
    if (ran.length === 0) return undefined;
    return this.recordOrSplit(ran, Date.now() + this.config.recording.maxWaitMs, alsoInTransaction);
  }

  private async recordOrSplit<T>(ran: readonly RanIntent[], waitUntil: number, alsoInTransaction?: (tx: Tx) => Promise<T>): Promise<T | undefined> {
    try {
      return await this.whileTransient(waitUntil, () => this.db.tx((tx) => this.recordOnce(tx, ran, alsoInTransaction)));
    } catch (e) {
      if (ran.length === 1) {
        await this.markAuditIncomplete(ran, e as Error, waitUntil);
        return undefined;
      }
      const mid = Math.ceil(ran.length / 2);
      this.log.warn({ msg: 'recording results failed; recording halves apart', count: ran.length, error: (e as Error).message });
      await this.recordOrSplit(ran.slice(0, mid), waitUntil);
      await this.recordOrSplit(ran.slice(mid), waitUntil);
      return undefined;
    }
  }

  private whileTransient<T>(waitUntil: number, fn: () => Promise<T>): Promise<T> {
    return retryWhileTransient(fn, waitUntil, (attempt, e) => this.log.warn({ msg: 'database unavailable while recording results', attempt, error: e.message }));
  }

  private async recordOnce<T>(tx: Tx, ran: readonly RanIntent[], alsoInTransaction?: (tx: Tx) => Promise<T>): Promise<T | undefined> {
    const { drafts, notMoved } = await this.closeWithResults(tx, ran);
    if (notMoved.length > 0) {
      const late = new Set(notMoved.map((c) => c.facts.capabilityId));
      const lateRan = ran.filter((r) => late.has(r.claimed.intent.capabilityId));
      this.log.warn({ msg: 'results arrived after recovery had closed them', count: lateRan.length, decisionIds: someIds(lateRan.map((r) => r.claimed.intent.decisionId)) });
      await this.recordLateIn(tx, lateRan);
    }
    // The next group's start is not awaited before the journal's append: its statement and the
    // heads' lock then go in one round trip, in that order (heads last, ADR 0084).
    const also = alsoInTransaction?.(tx);
    also?.catch(() => undefined);
    await appendJournal(tx, drafts, this.config.topics.journal);
    return also === undefined ? undefined : await also;
  }

  /**
   * The effects closed with their results and the journal drafts that say so; `notMoved`, those
   * recovery had closed already. A seam: FailingResultRecorder fails journaling here, once the
   * effects are closed.
   */
  protected closeWithResults(tx: Tx, ran: readonly RanIntent[]): Promise<{ drafts: JournalDraft[]; notMoved: EffectClosing[] }> {
    return this.closings.closeWithResults(tx, ran.map(closingOf));
  }

  /**
   * Results of bodies that settled after their effect was closed unknown (they timed out, or
   * recovery called them lost): the final entry stands; the row keeps what the body did, and a
   * non-final late_tool_result says it, so an operator is not told "it may not have happened"
   * about a body that acted (ADR 0056). Bodies recovery fenced or reconciled record nothing.
   */
  override async recordLate(ran: readonly RanIntent[]): Promise<void> {
    if (ran.length === 0) return;
    await this.whileTransient(Date.now() + this.config.recording.maxWaitMs, () => this.db.tx((tx) => this.recordLateIn(tx, ran)));
  }

  private async recordLateIn(tx: Tx, ran: readonly RanIntent[]): Promise<void> {
    const late = await this.effects.recordLate(
      tx,
      ran.map((r) => ({ capabilityId: r.claimed.intent.capabilityId, state: r.result.effectBoundary, reasonCode: r.result.reasonCode ?? null })),
    );
    const recorded = ran.filter((r) => late.has(r.claimed.intent.capabilityId));
    if (recorded.length === 0) return;
    this.log.warn({ msg: 'late results of effects closed unknown recorded', reasonCode: 'late_tool_result', count: recorded.length, decisionIds: someIds(recorded.map((r) => r.claimed.intent.decisionId)) });
    await appendJournal(tx, recorded.map((r) => lateToolResultEntry(factsOf(r.claimed), r.result)), this.config.topics.journal);
  }

  /**
   * The effect happened but its result cannot be journaled: say so, visibly, on the run and in
   * the journal (a non-final audit_incomplete entry), and record the classified state so recovery
   * does not call it unknown. The effect is never refused after the fact.
   */
  private async markAuditIncomplete(ran: readonly RanIntent[], cause: Error, waitUntil: number): Promise<void> {
    const reason = `result not journaled: ${cause.message}`; // clipped by the entry factory
    this.log.error({ msg: 'effect results could not be journaled; marking their runs audit-incomplete', count: ran.length, decisionIds: someIds(ran.map((r) => r.claimed.intent.decisionId)), error: cause.message });
    await this.whileTransient(waitUntil, () =>
      this.db.tx(async (tx) => {
        // A run is the tenant's own (ADR 0061).
        const runs = [...new Map(ran.map((r) => [JSON.stringify([r.claimed.intent.runId, r.claimed.intent.tenant]), r.claimed.intent])).values()];
        await tx.$executeRaw`
          INSERT INTO runs (run_id, tenant, audit_incomplete, audit_incomplete_reason, updated_at)
          SELECT r, t, true, ${reason}, now() FROM unnest(${runs.map((i) => i.runId)}::text[], ${runs.map((i) => i.tenant)}::text[]) AS v(r, t)
          ON CONFLICT (run_id, tenant) DO UPDATE SET audit_incomplete = true, audit_incomplete_reason = EXCLUDED.audit_incomplete_reason, updated_at = now()`;
        await appendJournal(tx, await this.closings.closeAuditIncomplete(tx, ran.map(closingOf), reason), this.config.topics.journal);
      }),
    );
  }
}
