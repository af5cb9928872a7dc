import { intentsTopicOf, type Topics } from '@arvis/contracts';
import { createKafka, createProducer, toInboundHeaders, type Consumer, type Kafka, type Producer } from '@arvis/kafka';

interface Captured {
  topic: string;
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

const KEEP = 500;

/**
 * Reads the intents topics (every pool's, ADR 0081) in a throwaway group and keeps the latest
 * messages, so that a fault can publish an already published intent again, byte for byte, to the
 * topic it came from (a relay's at-least-once duplicate).
 */
export class IntentTap {
  seen = 0;
  private readonly ring: Captured[] = [];
  private readonly kafka: Kafka;
  private consumer?: Consumer;
  private producer?: Producer;

  constructor(brokers: string[], private readonly topics: Topics, private readonly pools: readonly string[]) {
    this.kafka = createKafka({ brokers, clientId: 'arvis-chaos-intent-tap' });
  }

  async start(): Promise<void> {
    this.consumer = this.kafka.consumer({ groupId: `arvis-chaos-tap-${process.pid}-${Date.now()}`, sessionTimeout: 10000, allowAutoTopicCreation: false });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.pools.map((p) => intentsTopicOf(this.topics, p)), fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ topic, message }) => {
        if (!message.value) return;
        this.seen++;
        this.ring.push({ topic, key: message.key?.toString('utf8') ?? '', value: message.value, headers: toInboundHeaders(message.headers) });
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
        const byTopic = new Map<string, Captured[]>();
        for (const c of again) byTopic.set(c.topic, [...(byTopic.get(c.topic) ?? []), c]);
        for (const [topic, messages] of byTopic) await this.producer.send({ topic, acks: -1, messages: messages.map(({ key, value, headers }) => ({ key, value, headers })) });
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
