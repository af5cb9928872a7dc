import { createKafka, type KafkaConnection } from '@arvis/kafka';
import type { TopicPosition } from './topic-copy';

/**
 * Reads the journal topic from the earliest record still retained up to the end it had when the
 * read began (records published meanwhile are left for the next run), in a throwaway consumer
 * group that is deleted afterwards, so no real consumer's offsets move.
 */
export async function readJournalTopic(connection: KafkaConnection, topic: string, onRecord: (value: Buffer | null, at: TopicPosition) => void): Promise<void> {
  const kafka = createKafka({ ...connection, clientId: 'arvis-cli-verify' });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `arvis-cli-verify-${process.pid}-${Date.now()}`;
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    // Last offset to read per partition; empty partitions need no reading.
    const remaining = new Map<number, bigint>();
    for (const o of offsets) if (BigInt(o.high) > BigInt(o.low)) remaining.set(o.partition, BigInt(o.high) - 1n);
    if (remaining.size > 0) await consumeUntil(kafka, groupId, topic, remaining, onRecord);
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

async function consumeUntil(
  kafka: ReturnType<typeof createKafka>,
  groupId: string,
  topic: string,
  remaining: Map<number, bigint>,
  onRecord: (value: Buffer | null, at: TopicPosition) => void,
): Promise<void> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, allowAutoTopicCreation: false });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const last = remaining.get(batch.partition);
        if (last === undefined) return;
        for (const m of batch.messages) {
          if (BigInt(m.offset) > last) break;
          onRecord(m.value, { partition: batch.partition, offset: m.offset });
        }
        if (BigInt(batch.lastOffset()) >= last) remaining.delete(batch.partition);
        // Stopping happens outside the handler: disconnecting from inside it would wait on itself.
        if (remaining.size === 0) finish();
      },
    });
    await finished;
  } finally {
    await consumer.disconnect();
  }
}
