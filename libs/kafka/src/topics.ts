import type { Kafka } from 'kafkajs';
import type { Topics } from '@arvis/contracts';

export interface TopicPlan {
  partitions: number;
  /** Retention of the journal copy; -1 keeps it without a time limit. */
  journalRetentionMs: number;
}

/** Creates whichever of the project's topics are missing (the broker never creates topics itself). */
export async function ensureTopics(kafka: Kafka, topics: Topics, plan: TopicPlan): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = Object.entries(topics).filter(([, name]) => !existing.has(name));
    if (wanted.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: wanted.map(([role, name]) => ({
        topic: name,
        numPartitions: plan.partitions,
        replicationFactor: 1,
        configEntries:
          role === 'journal' ? [{ name: 'retention.ms', value: String(plan.journalRetentionMs) }] : [],
      })),
    });
    return wanted.map(([, name]) => name);
  } finally {
    await admin.disconnect();
  }
}
