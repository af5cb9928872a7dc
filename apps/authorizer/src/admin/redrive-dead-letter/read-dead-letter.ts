import { randomUUID } from 'node:crypto';
import { ADMIN_READER_GROUP_PREFIX, createKafka } from '@arvis/kafka';

export interface TopicRecord {
  key: string | null;
  value: Buffer | null;
}

/**
 * Reads the one record at `partition`/`offset` of a topic, or null when that offset is not (or no
 * longer) on the topic. A throwaway consumer group, deleted afterwards, seeks straight to it: no
 * real consumer's offsets move. Dead letters are read this way because a DLQ topic is their only
 * copy: their outbox rows are pruned once published (ADR 0004). The group's name starts with
 * ADMIN_READER_GROUP_PREFIX, which the ACL table grants the authorizer.
 */
export async function readRecord(settings: Omit<Parameters<typeof createKafka>[0], 'clientId'>, topic: string, partition: number, offset: string, timeoutMs = 30_000): Promise<TopicRecord | null> {
  // As the authorizer's own principal, with its SASL/TLS: a secured broker refuses an anonymous client.
  const kafka = createKafka({ ...settings, clientId: 'arvis-admin-reader' });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${ADMIN_READER_GROUP_PREFIX}${randomUUID()}`;
  try {
    const p = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === partition);
    if (!p || BigInt(offset) < BigInt(p.low) || BigInt(offset) >= BigInt(p.high)) return null;
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 10_000 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let found!: (r: TopicRecord) => void;
      const record = new Promise<TopicRecord>((resolve) => (found = resolve));
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition: at, message }) => {
          if (at === partition && message.offset === offset) found({ key: message.key?.toString('utf8') ?? null, value: message.value });
        },
      });
      consumer.seek({ topic, partition, offset });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`reading ${topic}[${partition}]@${offset} timed out`)), timeoutMs)));
      try {
        return await Promise.race([record, timeout]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await consumer.disconnect();
    }
  } finally {
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
