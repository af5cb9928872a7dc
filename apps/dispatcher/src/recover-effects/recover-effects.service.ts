import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { appendJournal, toolResultEntry } from '@arvis/journal';
import { ConfirmationStore, EffectStore, type LostEffect } from '@arvis/lifecycle';
import { PrismaService } from '@arvis/persistence';
import { PeriodicTask } from '@arvis/runtime';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';
import { DeduplicateEffectsService } from '../deduplicate-effects/deduplicate-effects.service';
import { storedFactsOf } from '../dispatch-intents/stored-facts';
import { RedeliverIntentsService } from '../redeliver-intents/redeliver-intents.service';
import { RequestRetriesService } from '../request-retries/request-retries.service';

export interface RecoveryPass {
  unknown: number;
  redelivered: number;
  abandoned: number;
}

const BATCH = 500;

const LOST_MESSAGES: Record<LostEffect['reasonCode'], string> = {
  dispatcher_lost_before_effect: 'the dispatcher that consumed the capability stopped before the tool started; nothing ran',
  dispatcher_lost_during_effect: 'no result recorded before the deadline; the tool may have acted',
};

/**
 * At start-up and then periodically:
 * - a started effect past its deadline with no result (its dispatcher died, or hung past its
 *   tool's timeout) becomes effect_state_unknown: the tool may have acted, so it never runs again;
 * - a claim (consumed, body not started) past its deadline becomes effect_not_started: nothing
 *   ran, so the decision may be retried;
 * - an accepted intent whose capability is still minted long after it was committed is
 *   delivered again, as the same signed message (never a second capability), a bounded number
 *   of times (RedeliverIntentsService).
 * Several dispatchers may run this at once: each row is claimed by one conditional UPDATE.
 */
@Injectable()
export class RecoverEffectsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(RecoverEffectsService.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly prisma: PrismaService,
    private readonly effects: EffectStore,
    private readonly confirmations: ConfirmationStore,
    private readonly retries: RequestRetriesService,
    private readonly dedupe: DeduplicateEffectsService,
    private readonly redelivery: RedeliverIntentsService,
  ) {
    this.task = new PeriodicTask('recovery', config.recovery.intervalMs, () => this.pass(), this.log);
  }

  onApplicationBootstrap(): void {
    this.task.start({ immediately: true });
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  async pass(): Promise<RecoveryPass> {
    const unknown = await this.closeExpiredEffects();
    const { redelivered, abandoned } = await this.redelivery.pass();
    if (unknown || redelivered || abandoned) {
      this.log.warn(`recovery: ${unknown} effect(s) closed, ${redelivered} intent(s) delivered again, ${abandoned} never-activated intent(s) ended`);
    }
    return { unknown, redelivered, abandoned };
  }

  /**
   * Claims and started effects past their deadline: their dispatcher is gone (or hung past the
   * tool's timeout). Each gets its final entry here, once; a claim that never started is retried
   * like a failure (nothing ran), within the same risk and attempt limits.
   */
  private closeExpiredEffects(): Promise<number> {
    return this.prisma.tx(async (tx) => {
      const lost = await this.effects.closeLost(tx, BATCH);
      if (lost.length === 0) return 0;
      const facts = await storedFactsOf(tx, lost.map((l) => l.capabilityId));
      await this.confirmations.finalize(tx, lost.map((l) => l.capabilityId), lost.map((l) => l.state));
      await this.retries.request(tx, lost.filter((l) => l.state === 'effect_not_started').map((l) => facts.get(l.capabilityId)!));
      const outcomes = lost.map((l) => ({
        capabilityId: l.capabilityId,
        decisionId: l.decisionId,
        result: { effectBoundary: l.state, success: false, reasonCode: l.reasonCode, error: { code: l.reasonCode, message: LOST_MESSAGES[l.reasonCode] } },
      }));
      const waiters = await this.dedupe.closeWaiters(tx, outcomes);
      await appendJournal(tx, [...outcomes.map((o) => toolResultEntry(facts.get(o.capabilityId)!, o.result)), ...waiters], this.config.topics.journal);
      return lost.length;
    });
  }
}
