import { Kafka, logLevel, Partitioners, type Consumer, type IHeaders, type Producer, type ProducerConfig } from 'kafkajs';
import type { KafkaSettings } from '@arvis/config';

/**
 * The one place that knows kafkajs. Everything else speaks OutboundMessage/InboundMessage, so a
 * swap to another client (@confluentinc/kafka-javascript, @platformatic/kafka) touches this folder.
 */
export interface OutboundMessage {
  key: string;
  value: string | Buffer;
  headers?: Record<string, string>;
}

export interface InboundMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
  timestamp: string;
}

export function createKafka(settings: Pick<KafkaSettings, 'brokers' | 'clientId'>): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    connectionTimeout: 3000,
  });
}

/** A producer with the murmur2 partitioner (the Java client's), so keys land where Java would put them. */
export function createProducer(kafka: Kafka, config: ProducerConfig = {}): Producer {
  return kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner, ...config });
}

export function toInboundHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? String(v[v.length - 1]) : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
  return out;
}

/** An idempotent producer that waits for all in-sync replicas: a send resolves only once stored. */
export class KafkaPublisher {
  private readonly producer: Producer;
  private connected = false;

  constructor(kafka: Kafka) {
    this.producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 });
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    await this.producer.connect();
    this.connected = true;
  }

  /** Sends to several topics in one request; rejects unless every message was acknowledged. */
  async sendBatch(byTopic: Map<string, OutboundMessage[]>): Promise<void> {
    await this.connect();
    try {
      await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (e) {
      // Start from a fresh connection next time (the broker may have restarted).
      this.connected = false;
      await this.producer.disconnect().catch(() => undefined);
      throw e;
    }
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    await this.producer.disconnect();
  }
}

export type { Consumer, Kafka, Producer };
