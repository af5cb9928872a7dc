import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { KafkaSettings } from '@arvis/config';
import { createKafka, toInboundHeaders, type InboundMessage } from './kafka-client';

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
  /** Called when a handler keeps failing: the process must exit loudly rather than spin. */
  onFatal: (error: Error) => void;
  /**
   * Asked after a handler fault: true while a dependency (the database) is unreachable. Such a
   * fault is an outage, not the batch's: the partition pauses and the attempt is not counted,
   * so an outage of any length never ends in onFatal.
   */
  dependencyDown?: () => Promise<boolean>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  constructor(private readonly options: KafkaBatchTransportOptions) {
    super();
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
    this.consumer = kafka.consumer({
      groupId: settings.groupId,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      maxBytes: settings.maxBatchBytes,
      allowAutoTopicCreation: false,
      retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 5000 },
    });
    for (const pattern of this.messageHandlers.keys()) {
      const topic = this.options.topics[pattern];
      if (!topic) throw new Error(`no topic configured for handler pattern "${pattern}"`);
      this.patternByTopic.set(topic, pattern);
    }
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.patternByTopic.keys()], fromBeginning: true });
    this.consumer.on(this.consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload as { error: Error; restart: boolean };
      if (!restart && !this.closing) this.options.onFatal(error);
    });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: settings.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const pattern = this.patternByTopic.get(batch.topic);
    const handler = pattern ? this.getHandlerByPattern(pattern) : null;
    if (!handler) throw new Error(`no handler for topic ${batch.topic}`);
    const all: InboundMessage[] = batch.messages.map((m) => ({
      topic: batch.topic,
      partition: batch.partition,
      offset: m.offset,
      key: m.key ? m.key.toString('utf8') : null,
      value: m.value,
      headers: toInboundHeaders(m.headers),
      timestamp: m.timestamp,
    }));
    for (let i = 0; i < all.length; i += this.options.maxSliceSize) {
      if (!isRunning() || isStale()) return;
      const messages = all.slice(i, i + this.options.maxSliceSize);
      const slice: KafkaBatch = { topic: batch.topic, partition: batch.partition, messages };
      await this.withHeartbeat(heartbeat, () => this.runHandler(handler, slice, heartbeat));
      const last = messages[messages.length - 1].offset;
      resolveOffset(last);
      await this.consumer!.commitOffsets([
        { topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() },
      ]);
      await heartbeat();
    }
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

  /** A fault (bug, lock timeout) is retried with backoff; past the limit the process exits. A database outage pauses. */
  private async runHandler(
    handler: NonNullable<ReturnType<Server['getHandlerByPattern']>>,
    slice: KafkaBatch,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const max = this.options.kafka.maxHandlerAttempts;
    for (let attempt = 1; ; attempt++) {
      try {
        await lastValueFrom(this.transformToObservable(await handler(slice)), { defaultValue: undefined });
        return;
      } catch (e) {
        const error = e as Error;
        if (!this.closing && (await this.options.dependencyDown?.())) {
          this.log.warn(`handler fault on ${slice.topic}[${slice.partition}] while the database is unreachable; pausing: ${error.message}`);
          attempt--;
          await heartbeat().catch(() => undefined);
          await sleep(1000);
          continue;
        }
        if (attempt >= max || this.closing) {
          const fatal = new Error(
            `handler for ${slice.topic}[${slice.partition}] failed ${attempt} times at offset ${slice.messages[0].offset}: ${error.message}`,
          );
          if (!this.closing) this.options.onFatal(fatal);
          throw fatal;
        }
        this.log.warn(`handler fault on ${slice.topic}[${slice.partition}] (attempt ${attempt}/${max}): ${error.message}`);
        await heartbeat().catch(() => undefined);
        await sleep(Math.min(200 * 2 ** attempt, 5000));
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    // disconnect() waits for the batch in progress, so its offsets are committed before we leave.
    await this.consumer?.disconnect();
  }

  on(): never {
    throw new Error('KafkaBatchTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }
}
