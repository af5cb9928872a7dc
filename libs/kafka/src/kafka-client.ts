import { connect as netConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, logLevel, Partitioners, type Consumer, type IHeaders, type ISocketFactory, type Producer, type ProducerConfig } from 'kafkajs';
import type { KafkaSecurity, KafkaSettings } from '@arvis/config';
import { fixLoadedKafkajsRequestTimeouts } from '@arvis/kafkajs-fixes';

// Before any connection exists: kafkajs 2.2.4 checks each connection for request timeouts every
// 100 ms, idle or not; this arms that check only while requests are in flight (ADR 0059).
fixLoadedKafkajsRequestTimeouts();

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

/** Where a client connects and how it authenticates (every client here, ADR 0033). */
export type KafkaConnection = Pick<KafkaSettings, 'brokers'> & { security?: KafkaSecurity };

/**
 * kafkajs's own socket factory, with Nagle's algorithm off as the Java client has it: a small
 * request written while another is unanswered on the same connection (concurrent sends, commits
 * of several partitions) goes out at once instead of after the first one's answer. Not the cause
 * of the produce-to-consume hop's tail, which has one request in flight per connection (ADR 0046).
 */
export const noDelaySocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect) : netConnect({ host, port }, onConnect);
  socket.setKeepAlive(true, 60_000);
  socket.setNoDelay(true);
  return socket;
};

export function createKafka(settings: KafkaConnection & { clientId: string } & Partial<Pick<KafkaSettings, 'connectRetries'>>): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    // Passed as kafkajs takes them: SASL (PLAIN or SCRAM) and TLS (own CA, client certificate).
    ...settings.security,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: settings.connectRetries ?? 8, maxRetryTime: 5000 },
    connectionTimeout: 3000,
    socketFactory: noDelaySocketFactory,
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

/**
 * An idempotent producer that waits for all in-sync replicas: a send resolves only once stored.
 * After any failed send the producer is replaced by a new one (new producer id, sequences from
 * zero). kafkajs rolls back its sequence numbers for every partition of a failed request, also
 * those the broker had stored; the next send there gets OUT_OF_ORDER_SEQUENCE_NUMBER, forever.
 */
export class KafkaPublisher {
  private producer: Producer;
  private connected = false;
  /** How many times the producer was replaced after a failed send. */
  recreated = 0;

  constructor(private readonly kafka: Kafka) {
    this.producer = this.newProducer();
  }

  private newProducer(): Producer {
    return createProducer(this.kafka, { idempotent: true, maxInFlightRequests: 1 });
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
      // Start from a fresh producer next time (the broker may have restarted, or the sequence
      // state no longer matches the broker's).
      const failed = this.producer;
      this.connected = false;
      this.producer = this.newProducer();
      this.recreated++;
      await failed.disconnect().catch(() => undefined);
      throw e;
    }
  }

  /** Which of these topics the broker has (and lets this principal see): one metadata request. */
  async existingTopics(names: readonly string[]): Promise<Set<string>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const all = new Set(await admin.listTopics());
      return new Set(names.filter((n) => all.has(n)));
    } finally {
      await admin.disconnect();
    }
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    await this.producer.disconnect();
  }
}

const TOO_LARGE_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);
/** The broker's ACLs refuse this principal the topic: sending the same rows again cannot succeed until an operator acts. */
const AUTHORIZATION_TYPES = new Set(['TOPIC_AUTHORIZATION_FAILED']);

/** Why the broker refused a send for good: the bytes (`too_large`) or the topic (`authorization`). */
export type SendRefusal = 'too_large' | 'authorization';

/**
 * Whether a failed send is one the broker will refuse every time, and why; null for anything else
 * (an outage, a lost leader, a failed login: those pass, or concern every row alike). kafkajs
 * wraps the broker's error in retry errors.
 */
export function sendRefusalOf(e: unknown): SendRefusal | null {
  for (let cur = e as { type?: unknown; cause?: unknown } | undefined, depth = 0; cur && depth < 8; cur = cur.cause as typeof cur, depth++) {
    if (typeof cur.type !== 'string') continue;
    if (TOO_LARGE_TYPES.has(cur.type)) return 'too_large';
    if (AUTHORIZATION_TYPES.has(cur.type)) return 'authorization';
  }
  return null;
}

/**
 * True if the broker refused a send because a message or record batch was too large: sending
 * the same bytes again can never succeed.
 */
export function isTooLargeError(e: unknown): boolean {
  return sendRefusalOf(e) === 'too_large';
}

export type { Consumer, Kafka, Producer };
