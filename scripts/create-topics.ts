// Creates the project's topics (from config) on the broker if they are missing. On a secured
// broker it runs as a principal that may create topics (the admin; docs/kafka-security.md).
import { z } from 'zod';
import {
  commonEnvShape,
  ConfigError,
  envInt,
  kafkaSecurity,
  kafkaSecurityEnvShape,
  kafkaTopicEnvShape,
  kafkaTopicSettings,
  loadConfig,
  topicsFor,
} from '@arvis/config';
import { createKafka, ensureTopics } from '@arvis/kafka';

async function main(): Promise<void> {
  const env = loadConfig(
    z.object({
      KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
      ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
      TOPIC_PARTITIONS: envInt(6, 1, 1000),
      /** -1 keeps the journal copy without a time limit. */
      JOURNAL_RETENTION_MS: z.preprocess((v) => (v === undefined || v === '' ? -1 : v), z.coerce.number().int().min(-1)),
      ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
      ...kafkaSecurityEnvShape,
      ...kafkaTopicEnvShape,
    }),
  );
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  const { topics: replication, issues: topicIssues } = kafkaTopicSettings(env);
  if (issues.length + topicIssues.length > 0) throw new ConfigError([...issues, ...topicIssues]);
  const topics = topicsFor(env.ARVIS_TOPIC_PREFIX);
  const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), security, clientId: 'arvis-topics' });
  const created = await ensureTopics(kafka, topics, {
    partitions: env.TOPIC_PARTITIONS,
    journalRetentionMs: env.JOURNAL_RETENTION_MS,
    ...replication,
  });
  console.log(`[topics] ${created.length ? `created ${created.join(', ')}` : 'all present'}`);
}

/** kafkajs gathers the broker's refusal of each topic under one "Topic creation errors". */
function reasons(e: Error): string {
  const each = (e as { errors?: { topic?: string; type?: string; message?: string }[] }).errors ?? [];
  return [e.message, ...each.map((t) => `${t.topic}: ${t.type ?? ''} ${t.message ?? ''}`.trim())].join('\n  ');
}

main().catch((e: Error) => {
  console.error(`[topics] ${reasons(e)}`);
  process.exit(e instanceof ConfigError ? 78 : 1);
});
