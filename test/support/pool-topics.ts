import { intentsTopicOf } from '@arvis/contracts';
import { topicsFor } from '@arvis/config';
import { createKafka } from '@arvis/kafka';
import type { TestEnvironment } from './environment';

/** Creates the intents topics of these pools (ADR 0081) beside the environment's, with its partition count. */
export async function createPoolTopics(env: TestEnvironment, pools: readonly string[]): Promise<string[]> {
  const names = pools.map((p) => intentsTopicOf(topicsFor(env.topicPrefix), p));
  const admin = createKafka({ brokers: env.brokers, clientId: 'arvis-test-setup' }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = names.filter((n) => !existing.has(n));
    if (wanted.length > 0) await admin.createTopics({ waitForLeaders: true, topics: wanted.map((topic) => ({ topic, numPartitions: 6, replicationFactor: 1 })) });
    return names;
  } finally {
    await admin.disconnect();
  }
}
