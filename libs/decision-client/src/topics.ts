import { DEFAULT_TOPICS, type Topics } from '@arvis/contracts';

/** The topic names with `ARVIS_TOPIC_PREFIX` in front, as the services build them. */
export function prefixedTopics(prefix = ''): Topics {
  return Object.fromEntries(Object.entries(DEFAULT_TOPICS).map(([role, name]) => [role, prefix + name])) as Topics;
}
