import { Inject, Injectable } from '@nestjs/common';
import { appendJournal, capabilityRefusalEntry } from '@arvis/journal';
import { CapabilityStore, IntentStore } from '@arvis/lifecycle';
import { enqueueOutbox } from '@arvis/outbox';
import { Database, type Tx } from '@arvis/persistence';
import { intentsTopicOf } from '@arvis/contracts';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import { DispatcherPools } from '../../config/dispatcher-pools';
import { storedFactsOf } from '../../intake/dispatch-intents/stored-facts';
import { IntentsLag } from './intents-lag';

const BATCH = 500;

export interface RedeliveryPass {
  redelivered: number;
  /** Intents ended here: delivered the maximum number of times and never consumed. */
  abandoned: number;
}

/**
 * An accepted intent whose capability is still minted long after commit is delivered again, as
 * the same signed message, from the intents row (never from a Kafka message): it may have been
 * lost. Redeliveries back off (the wait doubles each time) and are bounded: an intent that every
 * delivery failed to activate (its row, the store's fingerprint or the verification keys changed)
 * ends once, here, as capability_activation_failed. Nothing is redelivered or counted while its
 * partition is in this group's consumer lag: it may merely not have been read yet. Only the
 * intents of this dispatcher's pools are read, each sent again to its own pool's topic (ADR 0081).
 */
@Injectable()
export class RedeliverIntentsService {
  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly capabilities: CapabilityStore,
    private readonly intents: IntentStore,
    private readonly lag: IntentsLag,
    private readonly pools: DispatcherPools,
  ) {}

  async pass(): Promise<RedeliveryPass> {
    const candidates = await this.candidates(this.db);
    if (candidates.length === 0) return { redelivered: 0, abandoned: 0 };
    const lagging = await this.lag.lagging(candidates.map((c) => ({ pool: c.pool, runId: c.run_id })));
    const due = candidates.filter((c) => !lagging.has(IntentsLag.key(c.pool, c.run_id))).map((c) => c.intent_id);
    if (due.length === 0) return { redelivered: 0, abandoned: 0 };
    return this.db.tx(async (tx) => {
      const redelivered = await this.redeliver(tx, due);
      const abandoned = await this.abandon(tx, due);
      return { redelivered, abandoned };
    });
  }

  /**
   * Minted, not delivered for its backoff, and not waiting in the outbox. (Not activated nor
   * revoked is the predicate of the index of minted capabilities, which names no state, ADR 0048.) A row an operator
   * discarded (ADR 0036) waits for nothing: the intent is delivered from its stored message, and
   * ended after the bounded redeliveries if it still cannot be.
   */
  private candidates(sql: Pick<Tx, '$queryRaw'>) {
    return sql.$queryRaw<{ intent_id: string; run_id: string; pool: string }[]>`
      SELECT i.intent_id, i.run_id, i.pool FROM capabilities c JOIN intents i ON i.intent_id = c.intent_id
      WHERE c.activated_at IS NULL AND c.revoked_reason IS NULL AND c.state = 'minted' AND i.message IS NOT NULL
        AND i.pool = ANY(${this.pools.names}::text[])
        AND coalesce(i.last_delivered_at, i.committed_at)
            < now() - make_interval(secs => ${this.config.recovery.redeliverAfterMs}::float8 / 1000 * power(2, least(i.delivery_attempts, 10)))
        AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position AND o.published_at IS NULL AND o.discarded_at IS NULL)
      ORDER BY i.committed_at LIMIT ${BATCH}`;
  }

  private async redeliver(tx: Tx, intentIds: string[]): Promise<number> {
    const due = await this.intents.markDelivered(tx, intentIds, this.config.recovery.redeliverMaxAttempts);
    // To the intent's own pool's topic, whose dispatchers alone may claim it.
    await enqueueOutbox(tx, due.map((d) => ({ topic: intentsTopicOf(this.config.topics, d.pool), key: d.run_id, payload: d.message })));
    return due.length;
  }

  /** Only the revoking UPDATE journals, so an abandoned intent ends its decision once. */
  private async abandon(tx: Tx, intentIds: string[]): Promise<number> {
    const exhausted = await tx.$queryRaw<{ capability_id: string; delivery_attempts: number }[]>`
      SELECT capability_id, delivery_attempts FROM intents
      WHERE intent_id = ANY(${intentIds}::text[]) AND delivery_attempts >= ${this.config.recovery.redeliverMaxAttempts}`;
    if (exhausted.length === 0) return 0;
    await this.capabilities.lockInOrder(tx, exhausted.map((e) => e.capability_id));
    const revoked = await this.capabilities.revoke(tx, exhausted.map((e) => e.capability_id), 'capability_activation_failed');
    const facts = await storedFactsOf(tx, [...revoked]);
    const detail = `delivered ${this.config.recovery.redeliverMaxAttempts + 1} times and never activated; revoked`;
    await appendJournal(tx, [...revoked].map((id) => capabilityRefusalEntry(facts.get(id)!, 'capability_activation_failed', detail)), this.config.topics.journal);
    return revoked.size;
  }
}
