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

/** The pool of a tool package that names none (ADR 0080); its intents use the intents topic itself. */
export const DEFAULT_TOOL_POOL = 'shared';
/** A pool name: part of a topic name, a principal and a metric label, so a short lowercase word. */
export const TOOL_POOL_NAME = /^[a-z][a-z0-9-]{0,39}$/;
export const TOOL_POOL_NAME_RULE = 'a pool name is a lowercase letter then up to 39 lowercase letters, digits or "-"';

/**
 * The topic a pool's intents go to (ADR 0080): the shared pool keeps the intents topic, so a
 * deployment with one pool is unchanged; another pool's is `<intents>.pool.<name>`.
 */
export function intentsTopicOf(topics: Pick<Topics, 'intents'>, pool: string): string {
  if (!TOOL_POOL_NAME.test(pool)) throw new Error(`not a pool name: ${JSON.stringify(pool)} (${TOOL_POOL_NAME_RULE})`);
  return pool === DEFAULT_TOOL_POOL ? topics.intents : `${topics.intents}.pool.${pool}`;
}

/**
 * The consumer group of a pool's dispatchers (ADR 0080), from the dispatchers' KAFKA_GROUP_ID:
 * the shared pool keeps it; another pool's is `<group>.pool.<name>`, so each pool's dispatchers
 * share their pool's partitions among themselves only, and its ACL names that one group.
 */
export function dispatcherGroupOf(base: string, pool: string): string {
  if (!TOOL_POOL_NAME.test(pool)) throw new Error(`not a pool name: ${JSON.stringify(pool)} (${TOOL_POOL_NAME_RULE})`);
  return pool === DEFAULT_TOOL_POOL ? base : `${base}.pool.${pool}`;
}

/** Where a tenant's result topic names start, after ARVIS_TOPIC_PREFIX (ADR 0073). */
export const RESULT_TOPIC_BASE = 'arvis.results.';

const TOPIC_NAME_MAX = 249;
const KEPT = /^[A-Za-z0-9-]$/;

/**
 * The tenant's result topic (ADR 0073): `<prefix>arvis.results.<tenant encoded>`. A tenant name may
 * hold any character, a topic name only letters, digits, ".", "_" and "-": every UTF-8 byte of a
 * character other than a letter, a digit or "-" becomes `_` and two lowercase hex digits, so two
 * tenants never share a topic (the encoding is reversible) and the encoded part has no "." (Kafka
 * confuses "." and "_" in its metric names). A name that would pass Kafka's 249 characters is
 * `<prefix>arvis.results._z` and the first 40 hex digits of the tenant's SHA-256, never an
 * encoding's output ("_z" is not "_" and two hex digits). The hash is a callback so this file
 * needs no crypto import (the published client compiles it in).
 */
export function resultTopicOf(prefix: string, tenant: string, sha256Hex: (s: string) => string): string {
  let encoded = '';
  for (const ch of tenant) {
    if (KEPT.test(ch)) encoded += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) encoded += `_${byte.toString(16).padStart(2, '0')}`;
  }
  const name = `${prefix}${RESULT_TOPIC_BASE}${encoded}`;
  return name.length <= TOPIC_NAME_MAX ? name : `${prefix}${RESULT_TOPIC_BASE}_z${sha256Hex(tenant).slice(0, 40)}`;
}
