import { intentsTopicOf, type Topics } from '@arvis/contracts';
import { ensurePoolTopics, type Kafka } from '@arvis/kafka';

/**
 * The intents topics of these pools (ADR 0081) for the local environments (tests, chaos), made as
 * the authorizer makes them (ensurePoolTopics: the intents topic's partitions, leaders awaited).
 */
export async function createPoolTopics(kafka: Kafka, topics: Pick<Topics, 'intents'>, pools: readonly string[]): Promise<string[]> {
  await ensurePoolTopics(kafka, topics, pools);
  return pools.map((p) => intentsTopicOf(topics, p));
}
