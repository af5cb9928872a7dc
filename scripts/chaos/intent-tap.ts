import type { Topics } from '@arvis/contracts';
import { createKafka, createProducer, toInboundHeaders, type Consumer, type Kafka, type Producer } from '@arvis/kafka';

interface Captured {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

const KEEP = 500;

/**
 * Reads the intents topic in a throwaway group and keeps the latest messages, so that a fault can
 * publish an already published intent again, byte for byte (a relay's at-least-once duplicate).
 */
export class IntentTap {
  seen = 0;
  private readonly ring: Captured[] = [];
  private readonly kafka: Kafka;
  private consumer?: Consumer;
  private producer?: Producer;

  constructor(brokers: string[], private readonly topics: Topics) {
    this.kafka = createKafka({ brokers, clientId: 'arvis-chaos-intent-tap' });
  }

  async start(): Promise<void> {
    this.consumer = this.kafka.consumer({ groupId: `arvis-chaos-tap-${process.pid}-${Date.now()}`, sessionTimeout: 10000, allowAutoTopicCreation: false });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.topics.intents], fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        this.seen++;
        this.ring.push({ key: message.key?.toString('utf8') ?? '', value: message.value, headers: toInboundHeaders(message.headers) });
        if (this.ring.length > KEEP) this.ring.shift();
      },
    });
    this.producer = createProducer(this.kafka);
    await this.producer.connect();
  }

  /** Publishes `count` captured intents again, chosen by `rng`; returns how many went out. */
  async replay(count: number, rng: () => number): Promise<number> {
    if (!this.ring.length || !this.producer) return 0;
    const again = Array.from({ length: count }, () => this.ring[Math.floor(rng() * this.ring.length)]);
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await this.producer.send({ topic: this.topics.intents, acks: -1, messages: again });
        return again.length;
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    return 0;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
    await this.producer?.disconnect();
  }
}
