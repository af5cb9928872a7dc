import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { appendJournal } from '@arvis/journal';
import { EffectStore, type LostEffect } from '@arvis/lifecycle';
import { Database, type Tx } from '@arvis/persistence';
import { JournalRollbackGuard, PeriodicTask, decisionFields } from '@arvis/runtime';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import { CloseEffectsService } from '../../outcomes/close-effects/close-effects.service';
import { DispatcherPools } from '../../config/dispatcher-pools';
import { storedFactsOf } from '../../intake/dispatch-intents/stored-facts';
import { ReconcileEffectsService } from '../reconcile-effects/reconcile-effects.service';
import { RedeliverIntentsService } from '../redeliver-intents/redeliver-intents.service';

export interface RecoveryPass {
  unknown: number;
  redelivered: number;
  abandoned: number;
}

const BATCH = 500;

/**
 * At start-up and then periodically:
 * - a started effect past its deadline with no result (its dispatcher died, or hung past its
 *   tool's timeout) whose body wrote no start marker ends effect_not_started: recovery takes the
 *   marker's slot first, so that body can no longer begin (ADR 0056); one whose body began is
 *   looked up by its tool when the tool can tell; otherwise it becomes effect_state_unknown: the
 *   tool may have acted, so it never runs again;
 * - a claim (consumed, body not started) past its deadline becomes effect_not_started: nothing
 *   ran, so the decision may be retried;
 * - an accepted intent whose capability is still minted long after it was committed is
 *   delivered again, as the same signed message (never a second capability), a bounded number
 *   of times (RedeliverIntentsService).
 * Several dispatchers may run this at once: each row is claimed by one conditional UPDATE. Each
 * acts only on the rows of the pools it serves (ADR 0081).
 */
@Injectable()
export class RecoverEffectsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(RecoverEffectsService.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly effects: EffectStore,
    private readonly closings: CloseEffectsService,
    private readonly redelivery: RedeliverIntentsService,
    private readonly reconciler: ReconcileEffectsService,
    private readonly rollback: JournalRollbackGuard,
    private readonly pools: DispatcherPools,
  ) {
    // Not while the database is behind the journal topic (ADR 0055).
    this.task = new PeriodicTask('recovery', config.recovery.intervalMs, () => (this.rollback.open ? this.pass() : Promise.resolve()), this.log);
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
      this.log.warn({ msg: 'recovery pass', effectsClosed: unknown, intentsRedelivered: redelivered, intentsEnded: abandoned });
    }
    return { unknown, redelivered, abandoned };
  }

  /**
   * Claims and started effects past their deadline: their dispatcher is gone (or hung past the
   * tool's timeout). Each gets its final entry here, once; one that did nothing (never started,
   * or reconciled as not happened) is retried like a failure, within the risk and attempt limits.
   */
  private closeExpiredEffects(): Promise<number> {
    return this.db.tx(async (tx) => {
      // Only this dispatcher's pools' rows (ADR 0081): another pool's are its own dispatchers' to close.
      const lost = await this.effects.lockLost(tx, BATCH, this.pools.names);
      if (lost.length === 0) return 0;
      const verdicts = await this.reconciler.verdicts(lost, await takeBodyStartSlots(tx, lost));
      const facts = await storedFactsOf(tx, lost.map((l) => l.capabilityId));
      // Not known here which reserved a confirmation or hold a key: every statement runs.
      const drafts = await this.closings.closeLost(
        tx,
        verdicts.map((v) => ({ facts: facts.get(v.effect.capabilityId)!, result: v.result, confirmationReserved: true, holdsKey: true })),
      );
      // Off the hot path (only what recovery closes): one line per effect, with its ids.
      for (const v of verdicts) {
        const f = facts.get(v.effect.capabilityId)!;
        this.log.warn({ msg: 'effect closed by recovery', ...decisionFields(f), state: v.effect.state, reasonCode: v.effect.reasonCode ?? undefined });
      }
      await appendJournal(tx, drafts, this.config.topics.journal);
      return lost.length;
    });
  }
}

/**
 * Takes the body-start slot (unique per capability) of each started effect, in recovery's
 * transaction: where it is free the body never wrote its marker, and once this commits it never
 * will (its own insert conflicts and it does not run), so nothing ran. A body's insert racing
 * this one waits for it. Returns the capabilities fenced; the others' bodies began. Off the hot
 * path: only for effects recovery closes (ADR 0056).
 */
async function takeBodyStartSlots(tx: Tx, lost: readonly LostEffect[]): Promise<Set<string>> {
  const started = lost.filter((l) => l.state === 'effect_started');
  if (started.length === 0) return new Set();
  const rows = await tx.$queryRaw<{ capability_id: string }[]>`
    INSERT INTO tool_body_starts (capability_id, tool, recovery_fence)
    SELECT c, t, true FROM unnest(${started.map((l) => l.capabilityId)}::text[], ${started.map((l) => l.tool)}::text[]) AS v(c, t)
    ON CONFLICT (capability_id) DO NOTHING
    RETURNING capability_id`;
  return new Set(rows.map((r) => r.capability_id));
}
