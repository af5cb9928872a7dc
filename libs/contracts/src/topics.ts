import { z } from 'zod';

// Kafka's own rule for topic names; refusing here beats a broker error at first publish.
const TopicName = z
  .string()
  .min(1)
  .max(249)
  .regex(/^[a-zA-Z0-9._-]+$/, 'Kafka topic names use only letters, digits, ".", "_" and "-"');

// Strict so a misspelt key in configuration fails at startup instead of silently using a default.
export const TopicsSchema = z.strictObject({
  decisions: TopicName,
  decisionsDlq: TopicName,
  intents: TopicName,
  intentsDlq: TopicName,
  journal: TopicName,
});
export type Topics = z.infer<typeof TopicsSchema>;

export const DEFAULT_TOPICS: Readonly<Topics> = Object.freeze({
  decisions: 'arvis.decisions',
  decisionsDlq: 'arvis.decisions.dlq',
  intents: 'arvis.intents',
  intentsDlq: 'arvis.intents.dlq',
  journal: 'arvis.journal',
});
