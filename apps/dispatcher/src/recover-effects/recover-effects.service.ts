import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JournalEntryDraft } from '@arvis/contracts';
import { appendJournal } from '@arvis/journal';
import { enqueueOutbox } from '@arvis/outbox';
import { PrismaService } from '@arvis/persistence';
import { PeriodicTask } from '@arvis/runtime';
import { finalizeConfirmations } from '../classify-result/finalize-confirmations';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';

export interface RecoveryPass {
  unknown: number;
  redelivered: number;
}

const BATCH = 500;

/**
 * At start-up and then periodically:
 * - a started effect past its deadline with no result (its dispatcher died, or hung past its
 *   tool's timeout) becomes effect_state_unknown: the tool may have acted, so it never runs again;
 * - an accepted intent whose capability is still minted long after it was committed is
 *   delivered again, as the same signed message (never a second capability).
 * Several dispatchers may run this at once: each row is claimed by one conditional UPDATE.
 */
@Injectable()
export class RecoverEffectsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(RecoverEffectsService.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly prisma: PrismaService,
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
    const redelivered = await this.redeliverUnconsumedIntents();
    if (unknown || redelivered) this.log.warn(`recovery: ${unknown} effect(s) now unknown, ${redelivered} intent(s) delivered again`);
    return { unknown, redelivered };
  }

  private closeExpiredEffects(): Promise<number> {
    return this.prisma.tx(async (tx) => {
      const closed = await tx.$queryRaw<
        {
          capability_id: string;
          decision_id: string;
          run_id: string;
          causal_id: string;
          tenant: string;
          principal: string;
          tool: string;
          intent_commitment: string;
          idempotency_key: string;
        }[]
      >`
        WITH expired AS (
          SELECT capability_id FROM effects
          WHERE state = 'effect_started' AND deadline_at < now()
          ORDER BY deadline_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
        UPDATE effects e SET state = 'effect_state_unknown', reason_code = 'tool_timeout', finished_at = now()
        FROM expired x, intents i
        WHERE e.capability_id = x.capability_id AND e.state = 'effect_started' AND i.intent_id = e.intent_id
        RETURNING e.capability_id, e.decision_id, i.run_id, i.causal_id, i.tenant, i.principal, i.tool,
                  i.intent_commitment, i.idempotency_key`;
      await finalizeConfirmations(tx, closed.map((c) => c.capability_id), closed.map(() => 'effect_state_unknown'));
      const at = new Date().toISOString();
      await appendJournal(
        tx,
        closed.map(
          (c) =>
            ({
              kind: 'tool_result',
              decisionId: c.decision_id,
              runId: c.run_id,
              causalId: c.causal_id,
              tenant: c.tenant,
              principal: c.principal,
              tool: c.tool,
              capabilityId: c.capability_id,
              intentCommitment: c.intent_commitment,
              idempotencyKey: c.idempotency_key,
              effectBoundary: 'effect_state_unknown',
              success: false,
              reasonCode: 'tool_timeout',
              error: { code: 'tool_timeout', message: 'no result recorded before the deadline; the tool may have acted' },
              recordedAt: at,
            }) as JournalEntryDraft,
        ),
        this.config.topics.journal,
      );
      return closed.length;
    });
  }

  private redeliverUnconsumedIntents(): Promise<number> {
    const afterMs = this.config.recovery.redeliverAfterMs;
    return this.prisma.tx(async (tx) => {
      // Still minted, committed long ago, not delivered recently, and not waiting in the outbox.
      const due = await tx.$queryRaw<{ run_id: string; message: string }[]>`
        WITH due AS (
          SELECT i.intent_id FROM capabilities c JOIN intents i ON i.intent_id = c.intent_id
          WHERE c.state = 'minted' AND i.message IS NOT NULL
            AND coalesce(i.last_delivered_at, i.committed_at) < now() - make_interval(secs => ${afterMs}::float8 / 1000)
            AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position AND o.published_at IS NULL)
          ORDER BY i.committed_at LIMIT ${BATCH}
          FOR UPDATE OF i SKIP LOCKED)
        UPDATE intents i SET last_delivered_at = now() FROM due WHERE i.intent_id = due.intent_id
        RETURNING i.run_id, i.message`;
      await enqueueOutbox(
        tx,
        due.map((d) => ({ topic: this.config.topics.intents, key: d.run_id, payload: d.message })),
      );
      return due.length;
    });
  }
}
