// Creates the project's topics (from config) on the broker if they are missing. On a secured
// broker it runs as a principal that may create topics (the admin; docs/kafka-security.md).
import { ConfigError, kafkaSecurity, kafkaTopicSettings, loadConfig, resultTopicsFor, topicsFor } from '@arvis/config';
import { createKafka, ensureTopics } from '@arvis/kafka';
import { TopicsEnv } from './script-env';

async function main(): Promise<void> {
  const env = loadConfig(TopicsEnv);
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  const { topics: replication, issues: topicIssues } = kafkaTopicSettings(env);
  if (issues.length + topicIssues.length > 0) throw new ConfigError([...issues, ...topicIssues]);
  const topics = topicsFor(env.ARVIS_TOPIC_PREFIX);
  const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), security, clientId: 'arvis-topics' });
  const created = await ensureTopics(kafka, topics, {
    partitions: env.TOPIC_PARTITIONS,
    journalRetentionMs: env.JOURNAL_RETENTION_MS,
    ...replication,
  }, resultTopicsFor(env.ARVIS_TOPIC_PREFIX, env.RESULT_TOPIC_TENANTS), env.TOOL_POOLS);
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
