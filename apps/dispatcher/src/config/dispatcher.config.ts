import { hostname } from 'node:os';
import { z } from 'zod';
import { commonEnvShape, commonSettings, envInt, envJson, envOptionalInt, envString, loadConfig, managementPortOf } from '@arvis/config';
import { DEFAULT_TOOL_POOL, TOOL_POOL_NAME, TOOL_POOL_NAME_RULE } from '@arvis/contracts';
import { toolPackagesEnv } from '@arvis/tool-catalog';

const PgUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL');
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256');

/** Every variable the dispatcher reads (docs/configuration.md is generated from it). */
export const DispatcherEnv = z.object({
  ...commonEnvShape,
  /** Health and metrics, the dispatcher's only HTTP surface (ADR 0038); HTTP_PORT is its former name. */
  MANAGEMENT_PORT: envOptionalInt(1, 65535),
  HTTP_PORT: envOptionalInt(1, 65535),
  KAFKA_GROUP_ID: envString('arvis-dispatcher'),
  KAFKA_CLIENT_ID: envString('arvis-dispatcher'),
  /**
   * 3 MB, not the services' 1 MB: an intents partition under a backlog holds record batches of
   * about 520 KB, and a fetch gives more than one partition only room for what is left after the
   * first; with three, up to KAFKA_PARTITIONS_CONCURRENCY slices overlap one another's database
   * waits (ADR 0094).
   */
  KAFKA_MAX_BATCH_BYTES: envInt(3 * 1048576, 1024),
  CONSUMER_SLICE_SIZE: envInt(500, 1, 5000),
  DISPATCHER_ID: z.string().min(1).optional(),
  MAX_INTENT_BYTES: envInt(65536, 1024, 1048576),
  TOOL_CONCURRENCY: envInt(16, 1, 1024),
  TOOL_DATABASE_POOL_SIZE: envInt(8, 1, 64),
  /** The tool bodies' connections (DATABASE_URL when unset); with roles, a tool package's role (ADR 0034). */
  TOOL_DATABASE_URL: z.preprocess((v) => (v === '' ? undefined : v), PgUrl.optional()),
  /** Per tool package, JSON {"<package name>": "postgresql://…"}: each package's bodies log in as its own role. */
  TOOL_DATABASE_URLS: envJson(z.record(z.string().min(1), PgUrl), {}),
  /** keyId -> Ed25519 public key (PEM or base64 DER); several keys accepted for rotation. */
  INTENT_VERIFICATION_KEYS: envJson(
    z.record(z.string().min(1), z.string().min(1)).refine((m) => Object.keys(m).length > 0, 'at least one key is required'),
    {},
  ),
  /** How often recovery looks for started effects past their deadline and undelivered intents. */
  RECOVERY_INTERVAL_MS: envInt(5000, 100),
  /** Added to a tool's timeout: past it, a started effect without a result is effect_state_unknown. */
  RECOVERY_GRACE_MS: envInt(10000, 0),
  /**
   * A consumed capability whose body has not started is kept claimed by its dispatcher's
   * heartbeat; past this without one, recovery ends it effect_not_started (nothing ran).
   */
  RECOVERY_PENDING_GRACE_MS: envInt(30000, 300),
  /** How long recording a slice's results waits out a database outage before marking them audit-incomplete. */
  RECORD_RESULTS_MAX_WAIT_MS: envInt(600000, 1000),
  /** An accepted intent still not consumed after this long is delivered again. */
  REDELIVER_AFTER_MS: envInt(60000, 100),
  /** Redeliveries (the wait doubling each time) before an intent never activated is ended as capability_activation_failed. */
  REDELIVER_MAX_ATTEMPTS: envInt(5, 0, 20),
  /** Total attempts of one logical action (the first plus its retries); see ADR 0012. */
  RETRY_MAX_ATTEMPTS: envInt(3, 1, 10),
  /** A decision above this risk score is not retried automatically. */
  RETRY_MAX_RISK: z.preprocess((v) => (v === undefined || v === '' ? 0.6 : v), z.coerce.number().min(0).max(1)),
  /**
   * Previous catalog fingerprints still accepted during a rolling deploy: a JSON list, or the
   * fingerprints separated by commas.
   */
  ACCEPTED_CATALOG_FINGERPRINTS: z.preprocess(
    (v) => (typeof v === 'string' && /^[0-9a-f,\s]+$/.test(v) ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
    envJson(z.array(Sha256), []),
  ),
  /**
   * The tool pools this dispatcher serves (ADR 0081), comma-separated: it consumes each one's
   * intents topic in that pool's consumer group and loads only packages of these pools.
   */
  DISPATCHER_POOLS: z.preprocess(
    (v) => (v === undefined || v === '' ? [DEFAULT_TOOL_POOL] : String(v).split(',').map((s) => s.trim()).filter(Boolean)),
    z
      .array(z.string().regex(TOOL_POOL_NAME, TOOL_POOL_NAME_RULE))
      .min(1, 'name at least one pool')
      .refine((a) => new Set(a).size === a.length, 'names a pool twice'),
  ),
  /** Tool packages (module specifiers or paths, comma-separated) whose tools this dispatcher runs. */
  ARVIS_TOOL_PACKAGES: toolPackagesEnv,
});

export function loadDispatcherConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(DispatcherEnv, env);
  const common = commonSettings(e, e.KAFKA_CLIENT_ID, e.KAFKA_GROUP_ID);
  return {
    ...common,
    service: 'dispatcher' as const,
    managementPort: managementPortOf(e, 3002),
    sliceSize: e.CONSUMER_SLICE_SIZE,
    dispatcherId: e.DISPATCHER_ID ?? `${hostname()}-${process.pid}`,
    maxIntentBytes: e.MAX_INTENT_BYTES,
    toolConcurrency: e.TOOL_CONCURRENCY,
    toolDatabase: {
      url: e.TOOL_DATABASE_URL ?? common.database.url,
      perPackage: e.TOOL_DATABASE_URLS,
      poolSize: e.TOOL_DATABASE_POOL_SIZE,
    },
    verificationKeys: e.INTENT_VERIFICATION_KEYS,
    acceptedCatalogFingerprints: e.ACCEPTED_CATALOG_FINGERPRINTS,
    toolPackages: e.ARVIS_TOOL_PACKAGES,
    pools: e.DISPATCHER_POOLS as readonly string[],
    retry: { maxAttempts: e.RETRY_MAX_ATTEMPTS, maxRisk: e.RETRY_MAX_RISK },
    recovery: {
      intervalMs: e.RECOVERY_INTERVAL_MS,
      graceMs: e.RECOVERY_GRACE_MS,
      pendingGraceMs: e.RECOVERY_PENDING_GRACE_MS,
      redeliverAfterMs: e.REDELIVER_AFTER_MS,
      redeliverMaxAttempts: e.REDELIVER_MAX_ATTEMPTS,
    },
    recording: { maxWaitMs: e.RECORD_RESULTS_MAX_WAIT_MS },
  };
}

export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;
export const DISPATCHER_CONFIG = Symbol('DISPATCHER_CONFIG');
