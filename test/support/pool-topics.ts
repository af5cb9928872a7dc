import { topicsFor } from '@arvis/config';
import { createKafka } from '@arvis/kafka';
import { createPoolTopics as create } from '../../scripts/pool-topics';
import type { TestEnvironment } from './environment';

/** Creates the intents topics of these pools (ADR 0081) beside the environment's. */
export function createPoolTopics(env: TestEnvironment, pools: readonly string[]): Promise<string[]> {
  return create(createKafka({ brokers: env.brokers, clientId: 'arvis-test-setup' }), topicsFor(env.topicPrefix), pools);
}
