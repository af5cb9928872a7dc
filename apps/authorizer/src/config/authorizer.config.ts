import { z } from 'zod';
import { commonEnvShape, commonSettings, envBool, envInt, envJson, envString, loadConfig } from '@arvis/config';

const TrustedIssuer = z.strictObject({
  issuer: z.string().min(1),
  /** EdDSA or ES256 with a public key (PEM); HS256 with a shared secret only when ALLOW_HS256_IDENTITY. */
  alg: z.enum(['EdDSA', 'ES256', 'HS256']),
  publicKey: z.string().min(1).optional(),
  secret: z.string().min(32).optional(),
});

const AuthorizerEnv = z
  .object({
    ...commonEnvShape,
    HTTP_PORT: envInt(3001, 1, 65535),
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
      if (iss.alg === 'HS256' && !env.ALLOW_HS256_IDENTITY) {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message: 'HS256 issuers need ALLOW_HS256_IDENTITY=true' });
      }
      if (iss.alg === 'HS256' && env.ARVIS_PROFILE === 'production') {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message: 'HS256 is for local use only, never in production' });
      }
      if (iss.alg === 'HS256' ? !iss.secret : !iss.publicKey) {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message: `${iss.alg} needs ${iss.alg === 'HS256' ? 'secret' : 'publicKey'}` });
      }
    });
  });

export type TrustedIssuer = z.infer<typeof TrustedIssuer>;

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
  };
}

export type AuthorizerConfig = ReturnType<typeof loadAuthorizerConfig>;
export const AUTHORIZER_CONFIG = Symbol('AUTHORIZER_CONFIG');
