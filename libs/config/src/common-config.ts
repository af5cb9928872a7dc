import { z } from 'zod';
import { createHash } from 'node:crypto';
import { DEFAULT_TOOL_POOL, DEFAULT_TOPICS, resultTopicOf, TOOL_POOL_NAME, TOOL_POOL_NAME_RULE, type Topics } from '@arvis/contracts';
import { loadEd25519PrivateKey } from '@arvis/crypto';
import { ConfigError, envBool, envInt, envJson, envString } from './load-config';
import { faultsEnv, hasFaults } from './faults';
import { tracingEnvShape, tracingSettings } from './tracing-config';
import { kafkaSecurity, kafkaSecurityEnvShape, type KafkaSecurity } from './kafka-security-config';

export const Profile = z.enum(['production', 'test', 'development']);
export type Profile = z.infer<typeof Profile>;

/** Environment variables every service reads; each app extends this with its own. */
export const commonEnvShape = {
  ARVIS_PROFILE: z.preprocess((v) => (v === '' ? undefined : v), Profile.default('production')),
  LOG_LEVEL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  /** One JSON object per line (json), or a human line per event for a terminal (pretty); ADR 0064. */
  LOG_FORMAT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['json', 'pretty']).default('json')),
  /** Required in the production profile (databaseUrlFor): a deployment never falls back to a local database. */
  DATABASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL').optional()),
  /** Address the HTTP listeners (API and management) bind to; 0.0.0.0 inside a container. */
  HTTP_HOST: envString('127.0.0.1'),
  DATABASE_POOL_SIZE: envInt(4, 1, 64),
  DATABASE_TX_TIMEOUT_MS: envInt(15000, 100),
  KAFKA_BROKERS: envString('127.0.0.1:9092'),
  KAFKA_SESSION_TIMEOUT_MS: envInt(30000, 1000),
  KAFKA_HEARTBEAT_INTERVAL_MS: envInt(3000, 100),
  KAFKA_PARTITIONS_CONCURRENCY: envInt(3, 1, 64),
  KAFKA_MAX_BATCH_BYTES: envInt(1048576, 1024),
  /**
   * How long a consumed slice's offset may wait to be committed with others (0: each slice at
   * once). A wait only means a restart delivers those messages again, which handlers dedupe (ADR 0058).
   */
  KAFKA_COMMIT_INTERVAL_MS: envInt(250, 0, 10000),
  ...kafkaSecurityEnvShape,
  /** kafkajs's retries per connection attempt of the consumer; start-up itself retries without end. */
  KAFKA_CONNECT_RETRIES: envInt(10, 0, 100),
  /** Prefix for every topic name; fault specs use their own. */
  ARVIS_TOPIC_PREFIX: z.string().regex(/^[A-Za-z0-9._-]*$/).default(''),
  /** The tenants with a result topic of their own (ADR 0073); a final entry of another tenant is counted, not copied. */
  RESULT_TOPIC_TENANTS: resultTopicTenantsEnv(),
  RELAY_ENABLED: envBool(true),
  RELAY_BATCH_SIZE: envInt(500, 1, 10000),
  RELAY_POLL_MS: envInt(1000, 10),
  /**
   * The longest an idle background poll sleeps where a wake-up signal covers its work (ADR 0059):
   * the relay's fallback poll behind NOTIFY, the journal checkpointer behind the relay's publishes.
   */
  IDLE_POLL_MAX_MS: envInt(30000, 100, 600000),
  RELAY_LEASE_MS: envInt(30000, 1000, 3_600_000),
  /** Outbox shards, each published by one relay at a time (ADR 0089); every relay of a database must use the same count. */
  RELAY_SHARDS: envInt(1, 1, 64),
  /** Published outbox rows are deleted after this long, in batches of RELAY_PRUNE_BATCH. */
  RELAY_RETENTION_MS: envInt(7 * 24 * 3600 * 1000, 0),
  RELAY_PRUNE_BATCH: envInt(1000, 1, 100000),
  RELAY_PRUNE_INTERVAL_MS: envInt(60000, 100),
  /**
   * Bytes of payload (plus key and headers) in one relay send. Kafka refuses a record batch above
   * message.max.bytes (1 MB by default), and one partition's share of a send is one record batch.
   */
  RELAY_MAX_BATCH_BYTES: envInt(512 * 1024, 1024, 64 * 1024 * 1024),
  /** A row larger than this is quarantined without being sent; below the broker's limit, alone. */
  RELAY_MAX_MESSAGE_BYTES: envInt(768 * 1024, 1024, 64 * 1024 * 1024),
  /** Raw bytes of an unreadable message kept in its DLQ record (base64: 4/3 of this). */
  DLQ_MAX_RAW_BYTES: envInt(128 * 1024, 0, 64 * 1024 * 1024),
  ARVIS_FAULTS: faultsEnv,
  /** Attempts at one message that keeps failing (not a transient fault) before it is isolated and dead-lettered. */
  CONSUMER_MAX_HANDLER_ATTEMPTS: envInt(5, 1, 100),
  /**
   * How long one slice should take: slices grow while they finish sooner and shrink when they
   * overrun (ADR 0042), since every partition's next fetch waits for the slowest slice.
   */
  CONSUMER_SLICE_TARGET_MS: envInt(500, 10, 600000),
  /**
   * How far V8's old generation may grow past what survived the last full GC, in percent (0:
   * V8's own choice, up to four times). Bounds the promoted garbage a burst leaves (ADR 0085).
   */
  HEAP_GROWING_PERCENT: envInt(100, 0, 1000),
  /**
   * Signed journal checkpoints (ADR 0025): written by whichever process runs the active relay.
   * Without a key no checkpoint is written; analysts get the public half.
   */
  JOURNAL_CHECKPOINT_SIGNING_KEY_ID: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).max(200).optional()),
  /** Ed25519 private key (PEM or base64 pkcs8 DER). */
  JOURNAL_CHECKPOINT_SIGNING_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /** A checkpoint is due once this many entries are unsigned… */
  JOURNAL_CHECKPOINT_EVERY_ENTRIES: envInt(1000, 1, 10_000_000),
  /** …or once the oldest unsigned entry is this old. */
  JOURNAL_CHECKPOINT_EVERY_MS: envInt(60000, 100),
  ...tracingEnvShape,
};

/**
 * How many hash chains the journal is split into (ADR 0062), applied by `npm run migrate`: the
 * database's head rows are the count every appender uses, so writers cannot disagree. It only
 * grows. 64 at most: one head row, one lock, one checkpoint per chain.
 */
export const journalShardsEnv = envInt(1, 1, 64);

/** The database of the demo and the tests: a default outside the production profile only. */
export const LOCAL_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/arvis';

/** DATABASE_URL, or the local default outside production; an issue when production lacks it. */
export function databaseUrlFor(env: { ARVIS_PROFILE: Profile; DATABASE_URL?: string }): { url: string; issues: string[] } {
  if (env.DATABASE_URL !== undefined) return { url: env.DATABASE_URL, issues: [] };
  if (env.ARVIS_PROFILE === 'production') return { url: '', issues: ['DATABASE_URL: required in the production profile (no local default)'] };
  return { url: LOCAL_DATABASE_URL, issues: [] };
}

/**
 * The management port (health, metrics) of a service without an API (dispatcher, relay):
 * MANAGEMENT_PORT, or HTTP_PORT, its name before the API and management surfaces were split
 * (ADR 0038), so a deployment that set HTTP_PORT keeps its probes where they were.
 */
export function managementPortOf(env: { MANAGEMENT_PORT?: number; HTTP_PORT?: number }, def: number): number {
  return env.MANAGEMENT_PORT ?? env.HTTP_PORT ?? def;
}

/** RESULT_TOPIC_TENANTS: a JSON list of tenant names, each once. Also read by the topics and ACL scripts. */
export function resultTopicTenantsEnv() {
  return envJson(
    z.array(z.string().min(1).max(200)).refine((l) => new Set(l).size === l.length, 'a tenant is listed twice'),
    [],
  );
}

/**
 * TOOL_POOLS: the dispatcher pools besides the shared one (ADR 0080), comma-separated; the topics
 * and ACL scripts give each its intents topic and its dispatchers' ACLs. The shared pool is always
 * there; naming it is allowed and changes nothing.
 */
export function toolPoolsEnv() {
  return z.preprocess(
    (v) => (v === undefined || v === '' ? [] : String(v).split(',').map((s) => s.trim()).filter(Boolean)),
    z
      .array(z.string().regex(TOOL_POOL_NAME, TOOL_POOL_NAME_RULE))
      .refine((l) => new Set(l).size === l.length, 'a pool is listed twice')
      .transform((l) => l.filter((p) => p !== DEFAULT_TOOL_POOL)),
  );
}

/** Each tenant's result topic (ADR 0073): tenant → topic name, through the reversible mapping of resultTopicOf. */
export function resultTopicsFor(prefix: string, tenants: readonly string[]): Readonly<Record<string, string>> {
  return Object.fromEntries(tenants.map((t) => [t, resultTopicOf(prefix, t, (s) => createHash('sha256').update(s, 'utf8').digest('hex'))]));
}

export function topicsFor(prefix: string): Topics {
  const t = DEFAULT_TOPICS;
  return {
    decisions: prefix + t.decisions,
    decisionsDlq: prefix + t.decisionsDlq,
    intents: prefix + t.intents,
    intentsDlq: prefix + t.intentsDlq,
    journal: prefix + t.journal,
  };
}

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  groupId: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  partitionsConsumedConcurrently: number;
  maxBatchBytes: number;
  maxHandlerAttempts: number;
  /** SASL and TLS of every client this process builds (ADR 0033); empty: plaintext, no authentication. */
  security: KafkaSecurity;
  connectRetries: number;
  /** A slice's target duration; its size adapts to it, up to the service's slice size. */
  sliceTargetMs: number;
  /** How long a slice's offset may wait to be committed with other partitions' (ADR 0058). */
  commitIntervalMs: number;
}

export interface DatabaseSettings {
  url: string;
  poolSize: number;
  txTimeoutMs: number;
}

export interface RelaySettings {
  enabled: boolean;
  batchSize: number;
  pollMs: number;
  /** The fallback poll's longest period while idle (IDLE_POLL_MAX_MS); never below pollMs. */
  idlePollMaxMs: number;
  /** Longest a relay may hold the publishing lock with no statement running (a paused or hung relay loses it). */
  leaseMs: number;
  /**
   * Shards of the outbox by message key, each with its own publishing lock (ADR 0089): relays in
   * several processes publish different shards at once. 1: one lock, as before sharding. Optional
   * so that a caller building settings by hand gets one shard.
   */
  shards?: number;
  retentionMs: number;
  pruneBatch: number;
  pruneIntervalMs: number;
  /** Bytes in one send (a single row larger than this is sent alone, up to maxMessageBytes). */
  maxBatchBytes: number;
  /** Rows larger than this are quarantined without a send. */
  maxMessageBytes: number;
  /** Tenant → its result topic (ADR 0073); a final entry's copy also goes there. Empty: none. */
  resultTopics?: Readonly<Record<string, string>>;
}

export interface DlqSettings {
  /** Raw bytes of the dead-lettered message kept in the record; the detail says what was cut. */
  maxRawBytes: number;
}

/** Largest DLQ record for a raw message of `rawBytes`: base64 plus room for the other fields. */
export const dlqRecordBytesFor = (rawBytes: number) => Math.ceil(rawBytes / 3) * 4 + DLQ_RECORD_OVERHEAD_BYTES;
const DLQ_RECORD_OVERHEAD_BYTES = 16 * 1024;

/** Settings that are valid one by one but not together; every problem is listed. */
function crossCheck(env: CommonEnv): string[] {
  const issues: string[] = [];
  if (env.ARVIS_PROFILE === 'production' && hasFaults(env.ARVIS_FAULTS)) {
    issues.push('ARVIS_FAULTS: fault points are refused in the production profile');
  }
  // A DLQ record the relay would quarantine loses the dead letter: it must always fit.
  if (dlqRecordBytesFor(env.DLQ_MAX_RAW_BYTES) > env.RELAY_MAX_MESSAGE_BYTES) {
    issues.push(
      `DLQ_MAX_RAW_BYTES: a record for ${env.DLQ_MAX_RAW_BYTES} raw bytes takes up to ${dlqRecordBytesFor(env.DLQ_MAX_RAW_BYTES)} bytes, ` +
        `more than RELAY_MAX_MESSAGE_BYTES (${env.RELAY_MAX_MESSAGE_BYTES})`,
    );
  }
  issues.push(...checkpointKeyIssues(env));
  issues.push(...databaseUrlFor(env).issues);
  return issues;
}

function checkpointKeyIssues(env: CommonEnv): string[] {
  const id = env.JOURNAL_CHECKPOINT_SIGNING_KEY_ID;
  const key = env.JOURNAL_CHECKPOINT_SIGNING_KEY;
  if (id === undefined && key === undefined) return [];
  if (id === undefined || key === undefined) {
    return ['JOURNAL_CHECKPOINT_SIGNING_KEY_ID and JOURNAL_CHECKPOINT_SIGNING_KEY: set both or neither'];
  }
  try {
    loadEd25519PrivateKey(key);
    return [];
  } catch (e) {
    return [`JOURNAL_CHECKPOINT_SIGNING_KEY: ${(e as Error).message}`];
  }
}

export interface CheckpointSettings {
  keyId: string;
  /** Ed25519 private key, PEM or base64 pkcs8 DER (checked at start-up). */
  privateKey: string;
  everyEntries: number;
  everyMs: number;
}

// As z.object parses it: optional settings stay optional keys.
type CommonEnv = z.output<z.ZodObject<typeof commonEnvShape>>;

export function commonSettings(env: CommonEnv, clientId: string, groupId: string) {
  const { security, issues: securityIssues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  const issues = [...crossCheck(env), ...securityIssues];
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    faults: env.ARVIS_FAULTS,
    profile: env.ARVIS_PROFILE,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    heapGrowingPercent: env.HEAP_GROWING_PERCENT,
    httpHost: env.HTTP_HOST,
    topics: topicsFor(env.ARVIS_TOPIC_PREFIX),
    database: {
      url: databaseUrlFor(env).url,
      poolSize: env.DATABASE_POOL_SIZE,
      txTimeoutMs: env.DATABASE_TX_TIMEOUT_MS,
    } satisfies DatabaseSettings,
    kafka: {
      brokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
      clientId,
      groupId,
      sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: env.KAFKA_HEARTBEAT_INTERVAL_MS,
      partitionsConsumedConcurrently: env.KAFKA_PARTITIONS_CONCURRENCY,
      maxBatchBytes: env.KAFKA_MAX_BATCH_BYTES,
      maxHandlerAttempts: env.CONSUMER_MAX_HANDLER_ATTEMPTS,
      security,
      connectRetries: env.KAFKA_CONNECT_RETRIES,
      sliceTargetMs: env.CONSUMER_SLICE_TARGET_MS,
      commitIntervalMs: env.KAFKA_COMMIT_INTERVAL_MS,
    } satisfies KafkaSettings,
    relay: {
      enabled: env.RELAY_ENABLED,
      batchSize: env.RELAY_BATCH_SIZE,
      pollMs: env.RELAY_POLL_MS,
      idlePollMaxMs: env.IDLE_POLL_MAX_MS,
      leaseMs: env.RELAY_LEASE_MS,
      shards: env.RELAY_SHARDS,
      retentionMs: env.RELAY_RETENTION_MS,
      pruneBatch: env.RELAY_PRUNE_BATCH,
      pruneIntervalMs: env.RELAY_PRUNE_INTERVAL_MS,
      maxBatchBytes: env.RELAY_MAX_BATCH_BYTES,
      maxMessageBytes: env.RELAY_MAX_MESSAGE_BYTES,
      resultTopics: resultTopicsFor(env.ARVIS_TOPIC_PREFIX, env.RESULT_TOPIC_TENANTS),
    } satisfies RelaySettings,
    dlq: { maxRawBytes: env.DLQ_MAX_RAW_BYTES } satisfies DlqSettings,
    checkpoint: checkpointSettings(env),
    tracing: tracingSettings(env),
  };
}

/** Null when no signing key is configured: then this process writes no checkpoint. */
function checkpointSettings(env: CommonEnv): CheckpointSettings | null {
  if (env.JOURNAL_CHECKPOINT_SIGNING_KEY_ID === undefined || env.JOURNAL_CHECKPOINT_SIGNING_KEY === undefined) return null;
  return {
    keyId: env.JOURNAL_CHECKPOINT_SIGNING_KEY_ID,
    privateKey: env.JOURNAL_CHECKPOINT_SIGNING_KEY,
    everyEntries: env.JOURNAL_CHECKPOINT_EVERY_ENTRIES,
    everyMs: env.JOURNAL_CHECKPOINT_EVERY_MS,
  };
}
