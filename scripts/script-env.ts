// The variables of the operator's scripts (migrate, topics, kafka:acls) and the demo producer, in
// one module without side effects, so docs/configuration.md is generated from the very schemas
// the scripts parse.
import { z } from 'zod';
import { commonEnvShape, envInt, envOptionalInt, journalShardsEnv, envJson, envString, kafkaSecurityEnvShape, kafkaTopicEnvShape, resultTopicTenantsEnv, toolPoolsEnv } from '@arvis/config';
import { DEFAULT_ROLE_PREFIX, ROLE_PREFIX_PATTERN } from '@arvis/persistence';
import { toolPackagesEnv } from '@arvis/tool-catalog';

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);

/** `npm run migrate` (scripts/migrate.ts). */
export const MigrateEnv = z.object({
  ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  ARVIS_TOOL_PACKAGES: toolPackagesEnv,
  /** Roles are cluster-wide: one prefix per deployment sharing a PostgreSQL cluster. */
  ARVIS_DB_ROLE_PREFIX: z.preprocess(
    unsetIfEmpty,
    z.string().regex(ROLE_PREFIX_PATTERN, 'lower-case letters, digits and _, starting with a letter, at most 24').default(DEFAULT_ROLE_PREFIX),
  ),
  /** The journal's chains (ADR 0062): the missing heads are created; the count never shrinks. */
  JOURNAL_SHARDS: journalShardsEnv,
  /** The outbox's shard count (ADR 0089), kept in the database; unset leaves it as it is. */
  RELAY_SHARDS: envOptionalInt(1, 64),
});

/** `npm run topics` (scripts/create-topics.ts). */
export const TopicsEnv = z.object({
  KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
  ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
  TOPIC_PARTITIONS: envInt(6, 1, 1000),
  /** -1 keeps the journal copy without a time limit. */
  JOURNAL_RETENTION_MS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(-1).default(-1)),
  /** The tenants whose result topics are created (ADR 0073): the services' list. */
  RESULT_TOPIC_TENANTS: resultTopicTenantsEnv(),
  /** The tool pools besides the shared one (ADR 0080): each gets its intents topic. */
  TOOL_POOLS: toolPoolsEnv(),
  ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
  ...kafkaSecurityEnvShape,
  ...kafkaTopicEnvShape,
});

/** `npm run kafka:acls` (scripts/apply-kafka-acls.ts); `arvis doctor --kafka-admin-env` reads the same. */
export { AclsEnv } from '@arvis/kafka';

/** The demo producer (scripts/demo-producer.ts). */
export const DemoProducerEnv = z.object({
  KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
  ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
  DEMO_ISSUER: z.string().min(1),
  DEMO_ISSUER_KEY: z.string().min(1),
  DEMO_DECISIONS: envInt(5, 1, 10000),
  DEMO_TIMEOUT_MS: envInt(60000, 1000),
  /** How long to wait, after the last final entry, for a signed checkpoint covering it (0: not at all). */
  DEMO_CHECKPOINT_WAIT_MS: envInt(0, 0),
  ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
  // One principal for both: it writes decisions and reads the journal and the DLQs.
  ...kafkaSecurityEnvShape,
});
