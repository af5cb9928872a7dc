import type { KafkaSettings } from '@arvis/config';
import { createKafka, createProducer, KafkaBatchTransport, type KafkaBatch } from '@arvis/kafka';
import { brokers } from './environment';

/**
 * The consumer transport alone against the real broker (no apps, no database), for specs of how
 * it fetches and slices: one producer, fresh topics, and transports started on them, all closed
 * and deleted by `close()` (call it in afterAll).
 */
export class TransportBench {
  readonly prefix: string;
  readonly kafka;
  readonly producer;
  private readonly transports: KafkaBatchTransport[] = [];
  private readonly created: string[] = [];

  constructor(name: string) {
    this.prefix = `t${Date.now().toString(36)}-${process.env.ARVIS_TEST_NAMESPACE ?? ''}${name}`.replace(/[^A-Za-z0-9._-]/g, '_');
    this.kafka = createKafka({ brokers: brokers(), clientId: `arvis-test-${name}` });
    this.producer = createProducer(this.kafka);
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  async close(): Promise<void> {
    await Promise.all(this.transports.map((t) => t.close()));
    await this.producer.disconnect();
    const admin = this.kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: this.created }).finally(() => admin.disconnect());
  }

  async createTopic(topic: string, numPartitions: number): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], waitForLeaders: true }).finally(() => admin.disconnect());
    this.created.push(topic);
  }

  /** A transport on `topic` in its own group, with the services' consumer settings but the two given; listening when this resolves. */
  async consume(
    topic: string,
    fetch: Pick<KafkaSettings, 'partitionsConsumedConcurrently' | 'maxBatchBytes'>,
    handler: (batch: KafkaBatch) => Promise<void>,
  ): Promise<KafkaBatchTransport> {
    const settings: KafkaSettings = {
      brokers: brokers(),
      clientId: `${topic}-consumer`,
      groupId: `${topic}-group`,
      sessionTimeoutMs: 30_000,
      heartbeatIntervalMs: 3000,
      ...fetch,
      maxHandlerAttempts: 5,
      security: {},
      connectRetries: 10,
      sliceTargetMs: 500,
      commitIntervalMs: 250,
    };
    const transport = new KafkaBatchTransport({ kafka: settings, topics: { messages: topic }, maxSliceSize: 500, onFatal: () => undefined, dlqMaxRawBytes: 0 });
    this.transports.push(transport);
    transport.addHandler('messages', handler, true);
    await new Promise<void>((resolve, reject) => void transport.listen((e) => (e ? reject(e) : resolve())));
    return transport;
  }
}
