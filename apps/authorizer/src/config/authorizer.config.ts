import { z } from 'zod';
import { commonEnvShape, commonSettings, envBool, envInt, envJson, envString, loadConfig } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';
import { TrustedIssuer, trustedIssuerProblems } from './trusted-issuers';

const DAY_MS = 24 * 3600 * 1000;

export type { ClaimMapping, ClaimPath, JsonWebKeySet, TrustedIssuer } from './trusted-issuers';

const AuthorizerEnv = z
  .object({
    ...commonEnvShape,
    HTTP_PORT: envInt(3001, 1, 65535),
    /** Tool packages (module specifiers or paths, comma-separated) whose tools this authorizer judges. */
    ARVIS_TOOL_PACKAGES: toolPackagesEnv,
    KAFKA_GROUP_ID: envString('arvis-authorizer'),
    KAFKA_CLIENT_ID: envString('arvis-authorizer'),
    CONSUMER_SLICE_SIZE: envInt(500, 1, 5000),
    MAX_DECISION_BYTES: envInt(262144, 1024, 10 * 1024 * 1024),
    TRUSTED_ISSUERS: envJson(z.array(TrustedIssuer).min(1, 'at least one trusted issuer is required'), []),
    ALLOW_HS256_IDENTITY: envBool(false),
    JWT_CLOCK_SKEW_S: envInt(30, 0, 300),
    /** How long a parked decision waits for an approver, and how long an approval stays usable. */
    CONFIRMATION_REQUEST_TTL_MS: envInt(15 * 60 * 1000, 100),
    CONFIRMATION_GRANT_TTL_MS: envInt(5 * 60 * 1000, 100),
    CONFIRMATION_POLL_MS: envInt(1000, 50),
    /** How often the retry worker looks for retry rows to submit as new decisions. */
    RETRY_POLL_MS: envInt(1000, 50),
    /**
     * Retention (ADR 0041, docs/retention.md): off unless asked for, since it deletes records an
     * operator may have to keep. Windows are read on the database clock.
     */
    RETENTION_ENABLED: envBool(false),
    /** Intents, capabilities and finished effects of decisions whose final entry is older than this. */
    RETENTION_DECISIONS_MS: envInt(30 * DAY_MS, 0),
    /** Inbox rows (decisionId dedupe), confirmations, retries, effects holding their key: older than this. */
    RETENTION_DEDUPE_MS: envInt(30 * DAY_MS, 0),
    RETENTION_PRUNE_BATCH: envInt(1000, 1, 100000),
    RETENTION_PRUNE_INTERVAL_MS: envInt(60000, 100),
    INTENT_SIGNING_KEY_ID: envString('authorizer-1'),
    INTENT_SIGNING_KEY: z.string({ error: 'INTENT_SIGNING_KEY (Ed25519 private key, PEM or base64 DER) is required' }).min(1),
  })
  .superRefine((env, ctx) => {
    // The dedupe rows outlive the material: a decision whose intent is gone must still be refused
    // as a redelivery, and the dedupe pass only removes rows whose material is already gone.
    if (env.RETENTION_DEDUPE_MS < env.RETENTION_DECISIONS_MS) {
      ctx.addIssue({ code: 'custom', path: ['RETENTION_DEDUPE_MS'], message: `must be at least RETENTION_DECISIONS_MS (${env.RETENTION_DECISIONS_MS})` });
    }
    env.TRUSTED_ISSUERS.forEach((iss, i) => {
      for (const message of trustedIssuerProblems(iss, env)) ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message });
    });
  });

export function loadAuthorizerConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(AuthorizerEnv, env);
  return {
    ...commonSettings(e, e.KAFKA_CLIENT_ID, e.KAFKA_GROUP_ID),
    service: 'authorizer' as const,
    httpPort: e.HTTP_PORT,
    sliceSize: e.CONSUMER_SLICE_SIZE,
    maxDecisionBytes: e.MAX_DECISION_BYTES,
    retryPollMs: e.RETRY_POLL_MS,
    confirmations: {
      requestTtlMs: e.CONFIRMATION_REQUEST_TTL_MS,
      grantTtlMs: e.CONFIRMATION_GRANT_TTL_MS,
      pollMs: e.CONFIRMATION_POLL_MS,
    },
    retention: {
      enabled: e.RETENTION_ENABLED,
      decisionsMs: e.RETENTION_DECISIONS_MS,
      dedupeMs: e.RETENTION_DEDUPE_MS,
      batch: e.RETENTION_PRUNE_BATCH,
      intervalMs: e.RETENTION_PRUNE_INTERVAL_MS,
    },
    identity: { issuers: e.TRUSTED_ISSUERS, clockSkewS: e.JWT_CLOCK_SKEW_S },
    signing: { keyId: e.INTENT_SIGNING_KEY_ID, privateKey: e.INTENT_SIGNING_KEY },
    toolPackages: e.ARVIS_TOOL_PACKAGES,
  };
}

export type AuthorizerConfig = ReturnType<typeof loadAuthorizerConfig>;
export const AUTHORIZER_CONFIG = Symbol('AUTHORIZER_CONFIG');
