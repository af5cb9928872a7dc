import { randomUUID } from 'node:crypto';
import { createKafka, toInboundHeaders } from '@arvis/kafka';

export interface TopicRecord {
  partition: number;
  offset: string;
  key: string | null;
  value: string;
  headers: Record<string, string>;
}

/** Reads a topic from the beginning up to its current end, in partition order. */
export async function readWholeTopic(brokers: string[], topic: string): Promise<TopicRecord[]> {
  const kafka = createKafka({ brokers, clientId: 'arvis-test-reader' });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((p) => BigInt(p.high) > BigInt(p.low)).map((p) => [p.partition, BigInt(p.high)]));
  const out: TopicRecord[] = [];
  if (remaining.size === 0) return out;
  const consumer = kafka.consumer({ groupId: `arvis-test-reader-${randomUUID()}`, allowAutoTopicCreation: false });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reading ${topic} did not reach its end`)), 60_000);
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        out.push({ partition, offset: message.offset, key: message.key?.toString() ?? null, value: message.value?.toString() ?? '', headers: toInboundHeaders(message.headers) });
        const end = remaining.get(partition);
        if (end !== undefined && BigInt(message.offset) + 1n >= end) remaining.delete(partition);
        if (remaining.size === 0) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return out.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}
