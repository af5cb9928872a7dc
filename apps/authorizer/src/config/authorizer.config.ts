import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { commonEnvShape, commonSettings, envBool, envInt, envJson, envString, loadConfig } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';

// A JSON Web Key Set as identity providers publish it; keys are told apart by `kid`.
const Jwks = z.object({
  keys: z.array(z.looseObject({ kty: z.string().min(1), kid: z.string().min(1).optional() })).min(1, 'the key set has no keys'),
});
export type JsonWebKeySet = z.infer<typeof Jwks>;

const TrustedIssuer = z
  .strictObject({
    issuer: z.string().min(1),
    /**
     * EdDSA or ES256 with a public key (PEM) or a JWKS file (the identity provider's published key
     * set, read once at start-up; rotation = a new file and a restart); HS256 with a shared secret
     * only when ALLOW_HS256_IDENTITY.
     */
    alg: z.enum(['EdDSA', 'ES256', 'HS256']),
    publicKey: z.string().min(1).optional(),
    jwksFile: z.string().min(1).optional(),
    secret: z.string().min(32).optional(),
  })
  .transform((iss, ctx) => {
    if (!iss.jwksFile) return { ...iss, jwks: undefined };
    let text: string;
    try {
      text = readFileSync(iss.jwksFile, 'utf8');
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['jwksFile'], message: `cannot read ${iss.jwksFile}: ${(e as Error).message}` });
      return z.NEVER;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', path: ['jwksFile'], message: `${iss.jwksFile} is not JSON` });
      return z.NEVER;
    }
    const jwks = Jwks.safeParse(json);
    if (!jwks.success) {
      ctx.addIssue({ code: 'custom', path: ['jwksFile'], message: `${iss.jwksFile} is not a JWKS: ${jwks.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
      return z.NEVER;
    }
    return { ...iss, jwks: jwks.data };
  });

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
      if (iss.alg === 'HS256' && !env.ALLOW_HS256_IDENTITY) {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message: 'HS256 issuers need ALLOW_HS256_IDENTITY=true' });
      }
      if (iss.alg === 'HS256' && env.ARVIS_PROFILE === 'production') {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_ISSUERS', i], message: 'HS256 is for local use only, never in production' });
      }
      if (iss.alg === 'HS256' ? !iss.secret || iss.publicKey || iss.jwks : !iss.publicKey === !iss.jwks || iss.secret) {
        ctx.addIssue({
          code: 'custom',
          path: ['TRUSTED_ISSUERS', i],
          message: iss.alg === 'HS256' ? 'HS256 needs secret, and nothing else' : `${iss.alg} needs exactly one of publicKey or jwksFile, and no secret`,
        });
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
    toolPackages: e.ARVIS_TOOL_PACKAGES,
  };
}

export type AuthorizerConfig = ReturnType<typeof loadAuthorizerConfig>;
export const AUTHORIZER_CONFIG = Symbol('AUTHORIZER_CONFIG');
