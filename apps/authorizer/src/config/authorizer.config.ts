import { z } from 'zod';
import { commonEnvShape, commonSettings, envBool, envInt, envJson, envString, loadConfig } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';
import { TrustedIssuer, trustedIssuerProblems } from './trusted-issuers';
import { trustProxyEnv } from './trust-proxy';

const DAY_MS = 24 * 3600 * 1000;

export type { ClaimMapping, ClaimPath, JsonWebKeySet, TrustedIssuer } from './trusted-issuers';

/** Every variable the authorizer reads (docs/configuration.md is generated from it). */
export const AuthorizerEnv = z
  .object({
    ...commonEnvShape,
    /** The approver API and console (ADR 0037); health and metrics are on MANAGEMENT_PORT (ADR 0038). */
    HTTP_PORT: envInt(3001, 1, 65535),
    MANAGEMENT_PORT: envInt(3101, 1, 65535),
    /** Requests one client address may make to the approver API and console per window… */
    API_RATE_LIMIT: envInt(300, 1, 1_000_000),
    /** …and console sign-ins (each verifies a token) per window. */
    SIGN_IN_RATE_LIMIT: envInt(10, 1, 1_000_000),
    /**
     * Requests one client address may make per window whatever credentials they carry: API_RATE_LIMIT
     * is per credential where one is sent, so this bounds a flood of invented ones.
     */
    API_ADDRESS_RATE_LIMIT: envInt(3000, 1, 10_000_000),
    /** The proxies in front that may name the client (rate limits key on it): trust-proxy.ts. */
    TRUST_PROXY: trustProxyEnv,
    API_RATE_WINDOW_MS: envInt(60_000, 1000, 3_600_000),
    /** A console session ends after this long, or when its token expires, whichever is first. */
    CONSOLE_SESSION_TTL_MS: envInt(15 * 60 * 1000, 1000, 12 * 3600 * 1000),
    /** How often an open console's event stream looks for new pending confirmations. */
    CONSOLE_EVENTS_POLL_MS: envInt(1000, 100, 60_000),
    /** Event streams one console session may hold open at once (tabs); one more is refused with 429. */
    CONSOLE_STREAMS_PER_SESSION: envInt(3, 1, 100),
    /**
     * Sign-in with a pasted approver token (ADR 0037): off unless asked for; approvers sign in
     * through their OpenID provider instead where a trusted issuer has `oidc` (ADR 0071).
     */
    CONSOLE_TOKEN_SIGN_IN: envBool(false),
    /**
     * Dev sign-in (development profile only): the private key (Ed25519 PEM) of a trusted EdDSA
     * issuer named by CONSOLE_DEV_ISSUER, with which the console mints a token for a dev approver.
     */
    CONSOLE_DEV_ISSUER: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
    CONSOLE_DEV_ISSUER_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
    CONSOLE_DEV_TENANT: envString('acme'),
    /**
     * Approver notifications (ADR 0070): a webhook POSTed when a confirmation is parked and again
     * NOTIFY_BEFORE_EXPIRY_MS before it expires; off unless NOTIFY_WEBHOOK_URL is set.
     */
    NOTIFY_WEBHOOK_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
    NOTIFY_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32, 'must be at least 32 characters').optional()),
    /** The console's public URL, for the link in each notification. */
    CONSOLE_PUBLIC_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
    NOTIFY_BEFORE_EXPIRY_MS: envInt(3 * 60 * 1000, 0),
    NOTIFY_POLL_MS: envInt(1000, 50, 60_000),
    NOTIFY_MAX_ATTEMPTS: envInt(8, 1, 100),
    NOTIFY_BACKOFF_MS: envInt(1000, 10, 3_600_000),
    NOTIFY_TIMEOUT_MS: envInt(5000, 100, 60_000),
    /**
     * How long a replica that claimed a notification holds it (ADR 0070): another replica sends it
     * only once this lapses, so a replica that died mid-send delays it by at most this.
     */
    NOTIFY_LEASE_MS: envInt(60_000, 1000, 3_600_000),
    /** Tool packages (module specifiers or paths, comma-separated) whose tools this authorizer judges. */
    ARVIS_TOOL_PACKAGES: toolPackagesEnv,
    KAFKA_GROUP_ID: envString('arvis-authorizer'),
    KAFKA_CLIENT_ID: envString('arvis-authorizer'),
    CONSUMER_SLICE_SIZE: envInt(500, 1, 5000),
    MAX_DECISION_BYTES: envInt(262144, 1024, 10 * 1024 * 1024),
    TRUSTED_ISSUERS: envJson(z.array(TrustedIssuer).min(1, 'at least one trusted issuer is required'), []),
    ALLOW_HS256_IDENTITY: envBool(false),
    JWT_CLOCK_SKEW_S: envInt(30, 0, 300),
    /** Verified tokens kept by SHA-256 so a token carried by many decisions is verified once (ADR 0047); 0 turns it off. */
    IDENTITY_CACHE_MAX_ENTRIES: envInt(10_000, 0, 1_000_000),
    /** How long a parked decision waits for an approver, and how long an approval stays usable. */
    CONFIRMATION_REQUEST_TTL_MS: envInt(15 * 60 * 1000, 100),
    CONFIRMATION_GRANT_TTL_MS: envInt(5 * 60 * 1000, 100),
    CONFIRMATION_POLL_MS: envInt(1000, 50),
    /** `GET /decisions/{id}?waitS=` (ADR 0072): the longest wait granted, the shared poller's interval, the most long polls held at once. */
    RESULT_WAIT_MAX_S: envInt(30, 0, 300),
    RESULT_POLL_MS: envInt(250, 20, 10000),
    RESULT_MAX_WAITERS: envInt(1000, 1, 100000),
    /** How often the retry worker looks for retry rows to submit as new decisions. */
    RETRY_POLL_MS: envInt(1000, 50),
    /**
     * How long past its deadline an unknown effect's body may still run (it ignored its abort, or
     * its dispatcher was paused): "not happened" is refused until then (ADR 0056).
     */
    EFFECT_MAX_OVERRUN_MS: envInt(15 * 60 * 1000, 0),
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
    // Behind the TLS proxy a Secure cookie needs, every client would share the proxy's address
    // and one could exhaust the limits of all: say who the proxies are (or false: none).
    if (env.TRUST_PROXY === undefined && env.ARVIS_PROFILE === 'production') {
      ctx.addIssue({ code: 'custom', path: ['TRUST_PROXY'], message: 'must be set in production: the proxies in front (addresses or hop count), or false if clients connect directly' });
    }
    if (env.MANAGEMENT_PORT === env.HTTP_PORT) ctx.addIssue({ code: 'custom', path: ['MANAGEMENT_PORT'], message: 'must differ from HTTP_PORT (the approver API)' });
    for (const message of devSignInProblems(env)) ctx.addIssue({ code: 'custom', path: ['CONSOLE_DEV_ISSUER_KEY'], message });
    if (env.NOTIFY_WEBHOOK_URL !== undefined && env.NOTIFY_WEBHOOK_SECRET === undefined) ctx.addIssue({ code: 'custom', path: ['NOTIFY_WEBHOOK_SECRET'], message: 'is required with NOTIFY_WEBHOOK_URL (each delivery is signed with it)' });
    if (env.NOTIFY_WEBHOOK_URL !== undefined && env.CONSOLE_PUBLIC_URL === undefined) ctx.addIssue({ code: 'custom', path: ['CONSOLE_PUBLIC_URL'], message: 'is required with NOTIFY_WEBHOOK_URL (each notification links to the console)' });
    // A lease that could lapse while its attempt still waits for an answer would let a second
    // replica send the same notification alongside it.
    if (env.NOTIFY_LEASE_MS <= env.NOTIFY_TIMEOUT_MS) ctx.addIssue({ code: 'custom', path: ['NOTIFY_LEASE_MS'], message: 'must be longer than NOTIFY_TIMEOUT_MS (an attempt must end inside its lease)' });
  });

/** The dev sign-in mints approver tokens: never outside the development profile. */
function devSignInProblems(env: { ARVIS_PROFILE: string; CONSOLE_DEV_ISSUER?: string; CONSOLE_DEV_ISSUER_KEY?: string; TRUSTED_ISSUERS: TrustedIssuer[] }): string[] {
  if (env.CONSOLE_DEV_ISSUER === undefined && env.CONSOLE_DEV_ISSUER_KEY === undefined) return [];
  if (env.ARVIS_PROFILE !== 'development') return ['the console dev sign-in is for the development profile only'];
  if (env.CONSOLE_DEV_ISSUER === undefined || env.CONSOLE_DEV_ISSUER_KEY === undefined) return ['set CONSOLE_DEV_ISSUER and CONSOLE_DEV_ISSUER_KEY together'];
  const iss = env.TRUSTED_ISSUERS.find((i) => i.issuer === env.CONSOLE_DEV_ISSUER);
  return iss?.alg === 'EdDSA' ? [] : [`CONSOLE_DEV_ISSUER must name a trusted EdDSA issuer`];
}

export function loadAuthorizerConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(AuthorizerEnv, env);
  return {
    ...commonSettings(e, e.KAFKA_CLIENT_ID, e.KAFKA_GROUP_ID),
    service: 'authorizer' as const,
    httpPort: e.HTTP_PORT,
    managementPort: e.MANAGEMENT_PORT,
    rateLimit: { windowMs: e.API_RATE_WINDOW_MS, api: e.API_RATE_LIMIT, signIn: e.SIGN_IN_RATE_LIMIT, perAddress: e.API_ADDRESS_RATE_LIMIT },
    trustProxy: e.TRUST_PROXY ?? false,
    console: {
      sessionTtlMs: e.CONSOLE_SESSION_TTL_MS,
      eventsPollMs: e.CONSOLE_EVENTS_POLL_MS,
      streamsPerSession: e.CONSOLE_STREAMS_PER_SESSION,
      // Secure cookies need https; only a developer's machine serves the console over plain http.
      secureCookie: e.ARVIS_PROFILE !== 'development',
      tokenSignIn: e.CONSOLE_TOKEN_SIGN_IN,
      devSignIn:
        e.CONSOLE_DEV_ISSUER !== undefined && e.CONSOLE_DEV_ISSUER_KEY !== undefined
          ? { issuer: e.CONSOLE_DEV_ISSUER, privateKey: e.CONSOLE_DEV_ISSUER_KEY, tenant: e.CONSOLE_DEV_TENANT }
          : null,
    },
    notify:
      e.NOTIFY_WEBHOOK_URL !== undefined && e.NOTIFY_WEBHOOK_SECRET !== undefined && e.CONSOLE_PUBLIC_URL !== undefined
        ? {
            url: e.NOTIFY_WEBHOOK_URL,
            secret: e.NOTIFY_WEBHOOK_SECRET,
            consoleUrl: e.CONSOLE_PUBLIC_URL,
            beforeExpiryMs: e.NOTIFY_BEFORE_EXPIRY_MS,
            pollMs: e.NOTIFY_POLL_MS,
            maxAttempts: e.NOTIFY_MAX_ATTEMPTS,
            backoffMs: e.NOTIFY_BACKOFF_MS,
            timeoutMs: e.NOTIFY_TIMEOUT_MS,
            leaseMs: e.NOTIFY_LEASE_MS,
          }
        : null,
    sliceSize: e.CONSUMER_SLICE_SIZE,
    maxDecisionBytes: e.MAX_DECISION_BYTES,
    retryPollMs: e.RETRY_POLL_MS,
    effectMaxOverrunMs: e.EFFECT_MAX_OVERRUN_MS,
    confirmations: {
      requestTtlMs: e.CONFIRMATION_REQUEST_TTL_MS,
      grantTtlMs: e.CONFIRMATION_GRANT_TTL_MS,
      pollMs: e.CONFIRMATION_POLL_MS,
    },
    results: { waitMaxS: e.RESULT_WAIT_MAX_S, pollMs: e.RESULT_POLL_MS, maxWaiters: e.RESULT_MAX_WAITERS },
    retention: {
      enabled: e.RETENTION_ENABLED,
      decisionsMs: e.RETENTION_DECISIONS_MS,
      dedupeMs: e.RETENTION_DEDUPE_MS,
      batch: e.RETENTION_PRUNE_BATCH,
      intervalMs: e.RETENTION_PRUNE_INTERVAL_MS,
    },
    identity: { issuers: e.TRUSTED_ISSUERS, clockSkewS: e.JWT_CLOCK_SKEW_S, cacheMaxEntries: e.IDENTITY_CACHE_MAX_ENTRIES },
    signing: { keyId: e.INTENT_SIGNING_KEY_ID, privateKey: e.INTENT_SIGNING_KEY },
    toolPackages: e.ARVIS_TOOL_PACKAGES,
  };
}

export type AuthorizerConfig = ReturnType<typeof loadAuthorizerConfig>;
export const AUTHORIZER_CONFIG = Symbol('AUTHORIZER_CONFIG');
