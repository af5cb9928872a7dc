import { intentsTopicOf, type Topics } from '@arvis/contracts';
import type { Kafka } from '@arvis/kafka';

/**
 * Creates the intents topics of these pools (ADR 0081) where missing, for the local environments
 * (tests, chaos), and waits until every partition has a leader: a broker that has just started
 * answers "does not host this topic-partition" for a while, so kafkajs's own wait is not used.
 */
export async function createPoolTopics(kafka: Kafka, topics: Pick<Topics, 'intents'>, pools: readonly string[], partitions = 6): Promise<string[]> {
  const names = pools.map((p) => intentsTopicOf(topics, p));
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = names.filter((n) => !existing.has(n));
    if (wanted.length > 0) await admin.createTopics({ waitForLeaders: false, topics: wanted.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })) });
    for (let deadline = Date.now() + 60_000; ; ) {
      try {
        const listed = new Set(await admin.listTopics());
        if (names.every((n) => listed.has(n))) {
          const { topics: meta } = await admin.fetchTopicMetadata({ topics: names });
          if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return names;
        }
      } catch (e) {
        if (Date.now() > deadline) throw e;
      }
      if (Date.now() > deadline) throw new Error(`pool topics ${names.join(', ')} have no leaders after 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await admin.disconnect();
  }
}
