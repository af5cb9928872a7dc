import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { KafkaSettings } from '@arvis/config';
import { buildDlqRecord } from '@arvis/contracts';
import { CommitCoalescer } from './commit-coalescer';
import { consumerLag, deadLettersTotal } from './transport-metrics';
import { createKafka, KafkaPublisher, toInboundHeaders, type InboundMessage, type Kafka } from './kafka-client';
import { settleSlice, SettleStopped, type IsolatedMessage } from './settle-slice';
import { SliceSizer } from './slice-sizer';
import { TurnKeeper } from './turn-keeper';
import { isBrokerFault } from './broker-fault';
import { afterConsumerCrash } from './after-consumer-crash';

/** What an @EventPattern handler receives: a slice of one partition's batch, in offset order. */
export interface KafkaBatch {
  topic: string;
  partition: number;
  messages: InboundMessage[];
}

export interface KafkaBatchTransportOptions {
  kafka: KafkaSettings;
  /** Logical pattern (as written in @EventPattern) -> configured topic name. */
  topics: Record<string, string>;
  /** Largest slice handed to a handler at once; one database transaction per slice. */
  maxSliceSize: number;
  /** Called when the consumer itself crashed for good: the process must exit loudly rather than spin. */
  onFatal: (error: Error) => void;
  /** How much of an isolated message's raw bytes its DLQ record keeps. */
  dlqMaxRawBytes: number;
  /** Which handler failures to wait out (default: the broker's only; the runtime passes its isTransientFault, database faults too). */
  isTransient?: (error: unknown) => boolean;
  /** Where the default isolation sends a message's DLQ record (default: `<topic>.dlq`). */
  deadLetterTopic?: (sourceTopic: string) => string;
  /**
   * While closed, no slice is handled (its partition waits, heart-beating, nothing committed): the
   * service's rollback check (ADR 0055). Looked at once per slice.
   */
  gate?: { readonly open: boolean };
  /** Told when the consumer connects, is rejoining after a broker fault, or stops: readiness shows it. */
  onState?: (state: 'connecting' | 'connected' | 'rejoining' | 'stopped') => void;
}

/**
 * The pattern of the handler that records an isolated message of `pattern`'s topic, e.g.
 * `@EventPattern(isolatedPattern('decisions'))`. Without one, the transport publishes a DLQ
 * record (`message_unprocessable`) itself.
 */
export const isolatedPattern = (pattern: string): string => `${pattern}:isolated`;

type MessageHandlerFn = NonNullable<ReturnType<Server['getHandlerByPattern']>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const toInbound = (topic: string, partition: number, m: KafkaMessage): InboundMessage => ({
  topic,
  partition,
  offset: m.offset,
  key: m.key ? m.key.toString('utf8') : null,
  value: m.value,
  headers: toInboundHeaders(m.headers),
  timestamp: m.timestamp,
});

/**
 * NestJS transport over kafkajs: consumes in batches, partitions in parallel, and commits an
 * offset only after the handler (whose database transaction covers those messages) resolved.
 * Handlers must be idempotent per message: after a crash, the uncommitted tail is redelivered.
 */
export class KafkaBatchTransport extends Server implements CustomTransportStrategy {
  private consumer?: Consumer;
  private readonly log = new Logger(KafkaBatchTransport.name);
  private readonly patternByTopic = new Map<string, string>();
  private closing = false;
  private kafka?: Kafka;
  private publisher?: KafkaPublisher;
  private warnedOpaque = false;
  private readonly sizer: SliceSizer;
  private turns?: TurnKeeper;
  /** The lag series this consumer set, by `<topic>|<partition>`: removed when partitions move. */
  private readonly lagSeries = new Map<string, { group: string; topic: string; partition: string }>();
  private commits?: CommitCoalescer;

  constructor(private readonly options: KafkaBatchTransportOptions) {
    super();
    this.sizer = new SliceSizer(options.maxSliceSize, options.kafka.sliceTargetMs);
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      await this.start();
      callback();
    } catch (e) {
      callback(e);
    }
  }

  private async start(): Promise<void> {
    const { kafka: settings } = this.options;
    const kafka = createKafka(settings);
    this.kafka = kafka;
    this.consumer = kafka.consumer({
      groupId: settings.groupId,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      maxBytes: settings.maxBatchBytes,
      allowAutoTopicCreation: false,
      retry: { retries: settings.connectRetries, initialRetryTime: 300, maxRetryTime: 5000 },
    });
    for (const pattern of this.messageHandlers.keys()) {
      if (pattern.endsWith(isolatedPattern(''))) continue;
      const topic = this.options.topics[pattern];
      if (!topic) throw new Error(`no topic configured for handler pattern "${pattern}"`);
      this.patternByTopic.set(topic, pattern);
    }
    const consumer = this.consumer;
    this.commits = new CommitCoalescer(
      (offsets) => consumer.commitOffsets(offsets),
      settings.commitIntervalMs,
      (e) => this.log.warn({ msg: 'a deferred offset commit failed (a later one supersedes it; until then a restart delivers those messages again)', error: e.message }),
    );
    this.turns = new TurnKeeper(kafka.admin({ retry: { retries: 0 } }), settings.groupId, BigInt(this.sizer.initial));
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      this.options.onState?.('connected');
      this.turns!.assign(event.payload.memberAssignment);
      // A partition now another member's is no longer ours to report (its new owner reports it).
      for (const labels of this.lagSeries.values()) consumerLag.remove(labels);
      this.lagSeries.clear();
    });
    await this.connectUntilReachable();
    this.consumer.on(this.consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload as { error: Error; restart: boolean };
      const next = afterConsumerCrash(error, restart, this.closing, (e) => this.isTransient(e));
      if (next === 'fatal') this.options.onFatal(error);
      if (next === 'rejoin') {
        this.options.onState?.('rejoining');
        void this.rejoin(error);
      }
    });
    await this.run();
    this.options.onState?.('connected');
  }

  private run(): Promise<void> {
    return this.consumer!.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.kafka.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /**
   * After a crash kafkajs does not restart from (it has already disconnected the consumer): connect
   * and run again, with backoff, for as long as the broker is not ready; its subscriptions stay.
   */
  private async rejoin(cause: Error): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      this.log.warn({ msg: 'consumer stopped by a broker fault, rejoining the group', attempt, error: cause.message });
      await sleep(Math.min(5000, 500 * attempt));
      if (this.closing) return;
      try {
        await this.consumer!.connect();
        await this.run();
        this.options.onState?.('connected');
        return;
      } catch (e) {
        cause = e as Error;
        if (afterConsumerCrash(e, false, this.closing, (x) => this.isTransient(x)) === 'fatal') {
          this.options.onFatal(cause);
          return;
        }
        await this.consumer!.disconnect().catch(() => undefined);
      }
    }
  }

  /**
   * A broker that is down at start-up is a transient fault like any other: the service waits for
   * it (not ready meanwhile) instead of exiting once kafkajs's retries run out.
   */
  private async connectUntilReachable(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.consumer!.connect();
        await this.consumer!.subscribe({ topics: [...this.patternByTopic.keys()], fromBeginning: true });
        return;
      } catch (e) {
        if (this.closing) throw e;
        this.log.warn({ msg: 'broker not reachable at start-up, waiting', attempt, error: (e as Error).message });
        await this.consumer!.disconnect().catch(() => undefined);
        await sleep(Math.min(5000, 500 * attempt));
      }
    }
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const pattern = this.patternByTopic.get(batch.topic);
    const handler = pattern ? this.getHandlerByPattern(pattern) : null;
    if (!pattern || !handler) throw new Error(`no handler for topic ${batch.topic}`);
    const stopped = () => this.closing || !isRunning() || isStale();
    // The fetched batch is handled in slices, each committed after its transaction (ADR 0001).
    // kafkajs fetches again only once every batch of its last fetch has been handled, so this call
    // holds every other partition's new messages; but a return with a rest unresolved makes kafkajs
    // fetch and decode that rest again (ADR 0046). So before each further slice the broker is asked
    // whether another partition of this member has messages waiting. A few new ones (an idle
    // partition woke up) get their turn after this slice, as in ADR 0042; another backlog gets it
    // once this batch has held the round for the budget (CONSUMER_SLICE_TARGET_MS).
    const key = `${batch.topic}|${batch.partition}`;
    this.turns!.begin(batch.topic, batch.partition);
    // Where kafkajs's next fetch of this partition starts: after the last resolved message.
    let next = BigInt(batch.messages[0].offset);
    const held = performance.now();
    try {
      for (let from = 0; from < batch.messages.length; ) {
        if (stopped()) return;
        const waiting = from > 0 ? await this.turns!.othersWaiting(batch.topic, batch.partition) : 'none';
        if (waiting === 'new' || (waiting === 'backlog' && performance.now() - held >= this.options.kafka.sliceTargetMs)) return;
        const started = performance.now();
        const messages = batch.messages.slice(from, from + this.sizer.next(key)).map((m) => toInbound(batch.topic, batch.partition, m));
        if (!(await this.settleAndCommit(pattern, handler, messages, { resolveOffset, heartbeat, stopped }))) return;
        next = BigInt(messages[messages.length - 1].offset) + 1n;
        this.sizer.record(key, messages.length, performance.now() - started);
        from += messages.length;
      }
      next = BigInt(batch.lastOffset()) + 1n;
    } finally {
      this.turns!.end(batch.topic, batch.partition, next);
      // One gauge set per fetched batch, from the watermark kafkajs fetched with it: no request.
      const labels = { group: this.options.kafka.groupId, topic: batch.topic, partition: String(batch.partition) };
      this.lagSeries.set(key, labels);
      consumerLag.set(labels, Math.max(0, Number(BigInt(batch.highWatermark) - next)));
    }
  }

  /**
   * False if stopped mid-slice: it stays uncommitted, and the partition's next owner gets it again.
   * The offset of a slice handled plainly is committed within KAFKA_COMMIT_INTERVAL_MS, with the
   * other partitions' (ADR 0058); one that isolated a message (its DLQ record is published at
   * least once) and any slice while closing commit at once.
   */
  private async settleAndCommit(
    pattern: string,
    handler: MessageHandlerFn,
    messages: InboundMessage[],
    round: Pick<EachBatchPayload, 'resolveOffset' | 'heartbeat'> & { stopped: () => boolean },
  ): Promise<boolean> {
    const slice = { isolated: false };
    try {
      await this.withHeartbeat(round.heartbeat, async () => {
        if (!(await this.gateOpened(round.stopped))) throw new SettleStopped();
        await this.settle(pattern, handler, messages, round.heartbeat, round.stopped, slice);
      });
    } catch (e) {
      if (e instanceof SettleStopped) return false;
      throw e;
    }
    const { topic, partition, offset: last } = messages[messages.length - 1];
    round.resolveOffset(last);
    const next = { topic, partition, offset: (BigInt(last) + 1n).toString() };
    await (slice.isolated || this.closing ? this.commits!.now(next) : this.commits!.later(next));
    await round.heartbeat();
    return true;
  }

  /** Waits while the gate is closed; false if the consumer stops meanwhile. */
  private async gateOpened(stopped: () => boolean): Promise<boolean> {
    const gate = this.options.gate;
    if (!gate || gate.open) return true;
    this.log.warn('not handling messages: the rollback check refuses (see /health/ready)');
    while (!gate.open) {
      if (stopped()) return false;
      await sleep(500);
    }
    return true;
  }

  /**
   * A slice may take longer than the session timeout (many tool bodies, a database outage waited
   * out): the member keeps heart-beating while its handler runs, so the group does not evict it
   * and refuse its offset commit.
   */
  private async withHeartbeat<T>(heartbeat: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
    const beat = setInterval(() => void heartbeat().catch(() => undefined), this.options.kafka.heartbeatIntervalMs);
    try {
      return await fn();
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * A transient fault (database or broker down) is waited out, however long; never an exit. A
   * failure that recurs is narrowed down by halves to the one message that causes it, which is
   * isolated (its own handler, else a DLQ record) so the partition moves on.
   */
  private async settle(
    pattern: string,
    handler: MessageHandlerFn,
    messages: InboundMessage[],
    heartbeat: () => Promise<void>,
    stopped: () => boolean,
    slice: { isolated: boolean },
  ): Promise<void> {
    const where = { topic: messages[0].topic, partition: messages[0].partition };
    await settleSlice(messages, {
      handle: (run) => this.invoke(handler, { topic: run[0].topic, partition: run[0].partition, messages: run } satisfies KafkaBatch),
      isolate: (isolated) => {
        slice.isolated = true;
        return this.isolate(pattern, isolated);
      },
      isTransient: (e) => this.isTransient(e),
      maxAttempts: this.options.kafka.maxHandlerAttempts,
      stopped,
      pause: async (attempt) => {
        await heartbeat().catch(() => undefined);
        await sleep(Math.min(200 * 2 ** Math.min(attempt, 10), 5000));
      },
      onRetry: ({ messages: run, attempt, error, transient }) => {
        const what = run.length === 0 ? 'isolating a message' : `${run.length} message(s) from offset ${run[0].offset}`;
        this.log.warn({ msg: transient ? 'transient fault, retrying' : 'handler failure, retrying', ...where, what, attempt, error: error.message });
      },
    });
  }

  /**
   * Nest's default filter turns a handler's error into an opaque `{status, message}`; what
   * cannot be told apart is waited out (never isolated), as a database outage must be.
   */
  private isTransient(e: unknown): boolean {
    const opaque = !(e instanceof Error) && typeof e === 'object' && e !== null && (e as { status?: unknown }).status === 'error';
    if (opaque) {
      if (!this.warnedOpaque) this.log.warn('handler errors arrive opaque; add @UseFilters(new PassErrorsToTransport()) to the consumer to isolate failing messages');
      this.warnedOpaque = true;
      return true;
    }
    return (this.options.isTransient ?? isBrokerFault)(e);
  }

  private async invoke(handler: MessageHandlerFn, data: unknown): Promise<void> {
    await lastValueFrom(this.transformToObservable(await handler(data)), { defaultValue: undefined });
  }

  /** The topic's own isolation handler if it has one; its permanent failure falls back to the DLQ record. */
  private async isolate(pattern: string, isolated: IsolatedMessage): Promise<void> {
    const { message, error, attempts } = isolated;
    this.log.error({ msg: 'isolating a message', topic: message.topic, partition: message.partition, offset: String(message.offset), attempts, error: error.message });
    const own = this.getHandlerByPattern(isolatedPattern(pattern));
    if (own) {
      try {
        await this.invoke(own, isolated);
        return;
      } catch (e) {
        if (this.isTransient(e)) throw e;
        this.log.error({ msg: 'isolation handler failed; publishing a DLQ record instead', pattern, error: (e as Error).message });
      }
    }
    await this.publishDeadLetter(isolated);
  }

  /** Published straight to Kafka: a crash before the offset commit repeats it (at least once). */
  private async publishDeadLetter({ message, error, attempts }: IsolatedMessage): Promise<void> {
    const record = buildDlqRecord({
      sourceTopic: message.topic,
      partition: message.partition,
      offset: message.offset,
      reasonCode: 'message_unprocessable',
      detail: `handling failed ${attempts} time(s): ${error.message}`,
      raw: message.value,
      receivedAt: new Date(),
      maxRawBytes: this.options.dlqMaxRawBytes,
    });
    this.publisher ??= new KafkaPublisher(this.kafka!);
    const topic = (this.options.deadLetterTopic ?? ((t: string) => `${t}.dlq`))(message.topic);
    await this.publisher.sendBatch(new Map([[topic, [{ key: message.key ?? `${message.partition}:${message.offset}`, value: JSON.stringify(record) }]]]));
    deadLettersTotal.inc({ dlq_topic: topic, reason_code: record.reasonCode });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.options.onState?.('stopped');
    // What waits is committed while the consumer still runs; disconnect() then waits for the
    // batch in progress, whose last slice commits at once (closing), before we leave.
    await this.commits?.flush().catch((e: Error) => this.log.warn({ msg: 'offset commit at shutdown failed (those messages are delivered again)', error: e.message }));
    await this.consumer?.disconnect();
    await this.publisher?.disconnect().catch(() => undefined);
    await this.turns?.close();
  }

  on(): never {
    throw new Error('KafkaBatchTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }
}
