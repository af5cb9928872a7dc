import { randomUUID } from 'node:crypto';
import { createKafka, type KafkaConnection } from './kafka-client';

export interface ReadRecord {
  partition: number;
  offset: string;
  value: Buffer | null;
}

export interface ReadTopicOptions {
  /** The throwaway consumer group's name starts with this (the ACL table grants the prefix). */
  groupPrefix: string;
  clientId: string;
  /** Per partition, read only the last this many records; undefined: from the earliest retained. */
  tail?: number;
  timeoutMs?: number;
  /** kafkajs's connection retries (default 2); 0 fails at once when the broker is down. */
  connectRetries?: number;
}

/**
 * Reads a topic up to the end each partition had when the read began, in a throwaway consumer
 * group deleted afterwards, so no real consumer's offsets move. With `tail`, each partition is
 * read from `high - tail` only (a look at the newest records without reading the whole topic).
 */
export async function readTopic(connection: KafkaConnection, topic: string, opts: ReadTopicOptions): Promise<ReadRecord[]> {
  const kafka = createKafka({ ...connection, clientId: opts.clientId, connectRetries: opts.connectRetries ?? 2 });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${opts.groupPrefix}${randomUUID()}`;
  const out: ReadRecord[] = [];
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    // Per partition with records: where to start and the last offset to read.
    const ranges = new Map<number, { from: bigint; last: bigint }>();
    for (const o of offsets) {
      const low = BigInt(o.low);
      const high = BigInt(o.high);
      if (high <= low) continue;
      const from = opts.tail === undefined ? low : high - BigInt(opts.tail) > low ? high - BigInt(opts.tail) : low;
      ranges.set(o.partition, { from, last: high - 1n });
    }
    if (ranges.size === 0) return out;
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const remaining = new Set(ranges.keys());
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const range = ranges.get(batch.partition);
          if (!range || !remaining.has(batch.partition)) return;
          for (const m of batch.messages) {
            const at = BigInt(m.offset);
            if (at < range.from) continue;
            if (at > range.last) break;
            out.push({ partition: batch.partition, offset: m.offset, value: m.value });
          }
          if (BigInt(batch.lastOffset()) >= range.last) remaining.delete(batch.partition);
          // Stopping happens outside the handler: disconnecting from inside it would wait on itself.
          if (remaining.size === 0) finish();
        },
      });
      for (const [partition, range] of ranges) consumer.seek({ topic, partition, offset: range.from.toString() });
      let timer: NodeJS.Timeout | undefined;
      const timeoutMs = opts.timeoutMs ?? 30_000;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`reading ${topic} did not reach its end within ${timeoutMs} ms`)), timeoutMs)));
      try {
        await Promise.race([finished, timeout]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await consumer.disconnect();
    }
    return out;
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
