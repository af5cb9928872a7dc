import type { Admin, Kafka } from 'kafkajs';
import { intentsTopicOf, type Topics } from '@arvis/contracts';

export interface TopicPlan {
  partitions: number;
  /** Retention of the journal copy; -1 keeps it without a time limit. */
  journalRetentionMs: number;
  /** Replicas of each partition (default 1: the local single broker). */
  replicationFactor?: number;
  /** min.insync.replicas of the new topics (acks=all sends need this many replicas); broker default when unset. */
  minInsyncReplicas?: number;
  /** How long to wait for every partition of a new topic to have a leader. */
  leaderTimeoutMs?: number;
}

async function waitForLeaders(admin: Admin, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      // Listing first: asking for the metadata of a topic the broker does not know yet makes
      // kafkajs log an error per attempt.
      const listed = new Set(await admin.listTopics());
      const missing = names.filter((n) => !listed.has(n));
      if (missing.length > 0) {
        last = `not listed yet: ${missing.join(', ')}`;
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      const { topics } = await admin.fetchTopicMetadata({ topics: names });
      const ready = topics.filter((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)).length;
      if (ready === names.length) return;
      last = `${ready} of ${names.length} topics have leaders`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`topics ${names.join(', ')} not ready after ${timeoutMs} ms: ${last}`);
}

function configEntriesFor(role: string, plan: TopicPlan): { name: string; value: string }[] {
  // A result topic holds copies of journal entries: kept as long as the journal's copy.
  const entries = role === 'journal' || role === 'results' ? [{ name: 'retention.ms', value: String(plan.journalRetentionMs) }] : [];
  if (plan.minInsyncReplicas !== undefined) entries.push({ name: 'min.insync.replicas', value: String(plan.minInsyncReplicas) });
  return entries;
}

/**
 * Creates whichever of the project's topics are missing (the broker never creates topics itself),
 * the result topics of the configured tenants, and the intents topic of each tool pool besides the
 * shared one (ADR 0080), with the intents topic's partition count: the relay keys an intent by its
 * run on whichever intents topic, and a pool's dispatchers share that topic's partitions as the
 * shared pool's share the intents topic's.
 * Topics that exist keep their settings: changing a replication factor is a reassignment, an
 * operator's move, not a start-up's.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: Topics,
  plan: TopicPlan,
  resultTopics: Readonly<Record<string, string>> = {},
  pools: readonly string[] = [],
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    // The tenants' result topics (ADR 0073), from the same RESULT_TOPIC_TENANTS the relays read.
    const all = [
      ...Object.entries(topics),
      ...[...new Set(pools.map((p) => intentsTopicOf(topics, p)))].filter((name) => name !== topics.intents).map((name) => ['intents', name] as [string, string]),
      ...Object.values(resultTopics).map((name) => ['results', name] as [string, string]),
    ];
    const wanted = all.filter(([, name]) => !existing.has(name));
    if (wanted.length === 0) return [];
    // Leaders are awaited below rather than by kafkajs: on a broker that has just started, its
    // metadata can answer "does not host this topic-partition" for a while, and kafkajs gives up.
    await admin.createTopics({
      waitForLeaders: false,
      topics: wanted.map(([role, name]) => ({
        topic: name,
        numPartitions: plan.partitions,
        replicationFactor: plan.replicationFactor ?? 1,
        configEntries: configEntriesFor(role, plan),
      })),
    });
    const names = wanted.map(([, name]) => name);
    await waitForLeaders(admin, names, plan.leaderTimeoutMs ?? 60_000);
    return names;
  } finally {
    await admin.disconnect();
  }
}

/**
 * The authorizer's start (ADR 0080): the intents topic of each tool pool of its catalog besides
 * the shared one, created if missing with the intents topic's partition count and replicas (the
 * relay keys intents by run alike on each; a pool's dispatchers share its partitions as the
 * shared pool's share the intents topic's). Returns the topics it created. Where this principal
 * may not create topics (a secured broker, ADR 0033) the broker refuses, and the operator's
 * create-topics job with TOOL_POOLS makes them.
 */
export async function ensurePoolTopics(kafka: Kafka, topics: Pick<Topics, 'intents'>, pools: readonly string[], leaderTimeoutMs = 60_000): Promise<string[]> {
  const wanted = [...new Set(pools.map((p) => intentsTopicOf(topics, p)))].filter((name) => name !== topics.intents);
  if (wanted.length === 0) return [];
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((name) => !existing.has(name));
    if (missing.length === 0) return [];
    if (!existing.has(topics.intents)) throw new Error(`the intents topic ${topics.intents} does not exist, so its partition count is unknown (npm run topics)`);
    const [intents] = (await admin.fetchTopicMetadata({ topics: [topics.intents] })).topics;
    const replicas = Math.max(1, Math.min(...intents.partitions.map((p) => p.replicas.length)));
    await admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((topic) => ({ topic, numPartitions: intents.partitions.length, replicationFactor: replicas })),
    });
    await waitForLeaders(admin, missing, leaderTimeoutMs);
    return missing;
  } finally {
    await admin.disconnect();
  }
}
