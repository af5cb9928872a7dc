import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { loadEd25519PublicKey, type VerificationKeyring } from '@arvis/crypto';
import type { KafkaBatch } from '@arvis/kafka';
import type { OutboxRow } from '@arvis/outbox';
import { MetricsRegistry } from '@arvis/runtime';
import { Tracing } from '@arvis/tracing';
import { ClaimCapabilitiesService } from '../../claim/claim-capabilities/claim-capabilities.service';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import { DispatcherPools, type ServedPool } from '../../config/dispatcher-pools';
import { FaultPoints } from '../../fault-points/fault-points';
import { RunClaimedService } from '../../execution/run-claimed/run-claimed.service';
import { verifyIntentMessages, type VerifiedIntent } from '../verify-intent/verify-intent-messages';
import { IntentTraces } from './intent-traces';

export interface DispatchOutcome {
  executed: number;
  lostConsumption: number;
  deadLettered: number;
  refused: number;
}

/**
 * One slice of arvis.intents, as a pipeline: verify the messages (no database), claim their
 * capabilities (one transaction: match, check, revoke or consume), then run the claimed bodies a
 * group at a time, recording each group's results. Offsets are committed after all of it.
 */
@Injectable()
export class DispatchIntentsService {
  private readonly log = new Logger(DispatchIntentsService.name);
  private readonly keyring: VerificationKeyring;
  private readonly executedTotal: Counter;
  private readonly lostTotal: Counter;
  private readonly deadLetteredTotal: Counter;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly claims: ClaimCapabilitiesService,
    private readonly runner: RunClaimedService,
    private readonly faults: FaultPoints,
    metrics: MetricsRegistry,
    private readonly tracing: Tracing,
    private readonly pools: DispatcherPools,
  ) {
    // By pool (ADR 0081): the pools are configured, so the label's values are few.
    const labelNames = ['pool'];
    this.executedTotal = new Counter({ name: 'arvis_effects_executed_total', help: 'Tool bodies run by this dispatcher, by pool', labelNames, registers: [metrics] });
    this.lostTotal = new Counter({
      name: 'arvis_consumption_lost_total',
      help: 'Intents whose capability another dispatcher (or an earlier delivery) had already consumed, by pool',
      labelNames,
      registers: [metrics],
    });
    this.deadLetteredTotal = new Counter({ name: 'arvis_intents_dead_lettered_total', help: 'Intent messages sent to the DLQ, by the pool whose topic they came from', labelNames, registers: [metrics] });
    // Every pool's series from the start, at 0: a rate over a pool that has done nothing yet is 0, not absent.
    for (const p of pools.names) for (const c of [this.executedTotal, this.lostTotal, this.deadLetteredTotal]) c.inc({ pool: p }, 0);
    this.keyring = new Map(Object.entries(config.verificationKeys).map(([id, k]) => [id, loadEd25519PublicKey(k)]));
  }

  async handle(batch: KafkaBatch): Promise<DispatchOutcome> {
    const receivedAt = new Date();
    const { verified, deadLetters } = await verifyIntentMessages(batch.messages, {
      keyring: this.keyring,
      maxBytes: this.config.maxIntentBytes,
      dlqTopic: this.config.topics.intentsDlq,
      receivedAt,
      maxRawBytes: this.config.dlq.maxRawBytes,
    });
    const traces = new IntentTraces(this.tracing);
    traces.begin(verified, receivedAt);
    try {
      const outcome = await this.dispatch(this.pools.ofTopic(batch.topic), verified, deadLetters);
      traces.end();
      return outcome;
    } catch (e) {
      traces.end(e);
      throw e;
    }
  }

  private async dispatch(pool: ServedPool, verified: VerifiedIntent[], deadLetters: OutboxRow[]): Promise<DispatchOutcome> {
    this.faults.beforeConsume(verified.map((v) => v.intent.decisionId));
    const claim = await this.tracing.inSpans('claim capability', verified.map((v) => v.trace), () => this.claims.claim(verified, deadLetters, pool));
    const labels = { pool: pool.name };
    this.lostTotal.inc(labels, claim.lost);
    this.deadLetteredTotal.inc(labels, deadLetters.length);
    // Each dead letter is logged where it is made (deadLetterRow), with its ids and reason code.
    const executed = await this.runner.run(claim.claimed, claim.started);
    this.executedTotal.inc(labels, executed);
    return { executed, lostConsumption: claim.lost, deadLettered: deadLetters.length, refused: claim.refused };
  }
}
