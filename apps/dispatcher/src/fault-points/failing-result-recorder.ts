import { faultFor, type Faults } from '@arvis/config';
import type { JournalDraft } from '@arvis/journal';
import type { EffectStore } from '@arvis/lifecycle';
import type { Database, Tx } from '@arvis/persistence';
import type { DispatcherConfig } from '../config/dispatcher.config';
import type { CloseEffectsService, EffectClosing } from '../outcomes/close-effects/close-effects.service';
import { RecordResultsService } from '../outcomes/record-results/record-results.service';
import type { RanIntent } from '../outcomes/record-results/result-recorder';

/**
 * The result recorder of the test profile (ADR 0016): the real recorder, except that journaling
 * the results of the decisions journalResultFails names fails, on every attempt, inside the
 * results' transaction, once their effects are closed and before anything is journaled. The
 * halving and the audit-incomplete marking that must follow are the recorder's own, unchanged.
 * Bound as the ResultRecorder only when fault points are configured (outcomes.module.ts); the
 * production profile refuses them and binds RecordResultsService itself.
 */
export class FailingResultRecorder extends RecordResultsService {
  private readonly faults: Faults;

  constructor(config: DispatcherConfig, db: Database, effects: EffectStore, closings: CloseEffectsService) {
    super(config, db, effects, closings);
    this.faults = config.faults;
  }

  protected override async closeWithResults(tx: Tx, ran: readonly RanIntent[]): Promise<{ drafts: JournalDraft[]; notMoved: EffectClosing[] }> {
    const closed = await super.closeWithResults(tx, ran);
    if (ran.some((r) => faultFor(this.faults.journalResultFails, r.claimed.intent.decisionId))) throw new Error('fault point: journaling the result fails');
    return closed;
  }
}

