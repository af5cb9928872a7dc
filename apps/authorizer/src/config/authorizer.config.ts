import { z } from 'zod';
import { commonEnvShape, commonSettings, envBool, envInt, envJson, envString, loadConfig } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';
import { TrustedIssuer, trustedIssuerProblems } from './trusted-issuers';

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
    INTENT_SIGNING_KEY_ID: envString('authorizer-1'),
    INTENT_SIGNING_KEY: z.string({ error: 'INTENT_SIGNING_KEY (Ed25519 private key, PEM or base64 DER) is required' }).min(1),
  })
  .superRefine((env, ctx) => {
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
    identity: { issuers: e.TRUSTED_ISSUERS, clockSkewS: e.JWT_CLOCK_SKEW_S },
    signing: { keyId: e.INTENT_SIGNING_KEY_ID, privateKey: e.INTENT_SIGNING_KEY },
    toolPackages: e.ARVIS_TOOL_PACKAGES,
  };
}

export type AuthorizerConfig = ReturnType<typeof loadAuthorizerConfig>;
export const AUTHORIZER_CONFIG = Symbol('AUTHORIZER_CONFIG');
