import { readFileSync } from 'node:fs';
import { z } from 'zod';

// A JSON Web Key Set as identity providers publish it; keys are told apart by `kid`.
const Jwks = z.object({
  keys: z.array(z.looseObject({ kty: z.string().min(1), kid: z.string().min(1).optional() })).min(1, 'the key set has no keys'),
});
export type JsonWebKeySet = z.infer<typeof Jwks>;

/**
 * Where a claim is: a claim name taken literally (so namespaced names such as
 * `https://arvis.example/tenant` work), or a list of names walking into nested objects
 * (`["realm_access", "roles"]`).
 */
const ClaimPath = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
export type ClaimPath = z.infer<typeof ClaimPath>;

const Audiences = z.union([z.string().min(1).transform((a) => [a]), z.array(z.string().min(1)).min(1)]);

/** Which claims hold what; the defaults are the token shape docs/identity.md describes. */
const ClaimMapping = z
  .strictObject({
    subject: ClaimPath.default('sub'),
    tenant: ClaimPath.default('tenant'),
    roles: ClaimPath.default('roles'),
    service: ClaimPath.default('azp'),
    /**
     * Optional: a claim naming the person across issuers (e.g. a verified `email`), compared
     * when an approver's issuer is not the requester's (ADR 0035). No default.
     */
    person: ClaimPath.optional(),
  })
  .default({ subject: 'sub', tenant: 'tenant', roles: 'roles', service: 'azp' });
export type ClaimMapping = z.output<typeof ClaimMapping>;

/**
 * OpenID Connect sign-in to the approver console (ADR 0071): the console's client at this issuer.
 * The secret is read from a file at start-up, never given inline; the redirect URI is the
 * console's `…/console/oidc/callback` as the browser reaches it, registered at the provider.
 */
const ConsoleOidcClient = z.strictObject({
  clientId: z.string().min(1),
  clientSecretFile: z.string().min(1),
  redirectUri: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).refine((u) => new URL(u).pathname.endsWith('/console/oidc/callback'), 'must end with /console/oidc/callback'),
  /** Asked for at the provider; `openid` is always among them. */
  scope: z.string().min(1).default('openid'),
});

const TENANTS_REQUIRED =
  'required: the tenants this issuer may speak for, e.g. ["acme"], or ["*"] to keep accepting any tenant (see docs/upgrading.md)';

const TrustedIssuerShape = z.strictObject({
  issuer: z.string().min(1),
  /**
   * EdDSA, ES256 or RS256 (what most hosted providers sign with) with a public key (PEM), a JWKS
   * file (read once at start-up) or a JWKS URL (fetched, cached and refetched for an unknown kid,
   * without a restart); HS256 with a shared secret only when ALLOW_HS256_IDENTITY.
   */
  alg: z.enum(['EdDSA', 'ES256', 'RS256', 'HS256']),
  publicKey: z.string().min(1).optional(),
  jwksFile: z.string().min(1).optional(),
  jwksUri: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** jose createRemoteJWKSet's cacheMaxAge, cooldownDuration and timeoutDuration, in ms. */
  jwksCache: z
    .strictObject({
      maxAgeMs: z.number().int().min(0).default(600_000),
      cooldownMs: z.number().int().min(0).default(30_000),
      timeoutMs: z.number().int().min(1).max(60_000).default(5_000),
    })
    .optional(),
  secret: z.string().min(32).optional(),
  /** The `aud` a decision's token, and separately an approver's and an operator's (admin) bearer token, must carry (one of). */
  audience: z.strictObject({ decisions: Audiences.optional(), approvals: Audiences.optional(), admin: Audiences.optional() }).optional(),
  /** Accepted `typ` header values (compared case-insensitively, `application/` prefix ignored). */
  tokenTypes: z.array(z.string().min(1)).min(1).optional(),
  /** The oldest token accepted, in seconds since its `iat`; a token without `iat` is refused. */
  maxTokenAgeS: z.number().int().min(1).optional(),
  /** The tenants this issuer may speak for; `["*"]` is any tenant, and must be said. */
  tenants: z
    .array(z.string().min(1), { error: (i) => (i.input === undefined ? TENANTS_REQUIRED : undefined) })
    .min(1, TENANTS_REQUIRED)
    .refine((t) => !t.includes('*') || t.length === 1, '"*" stands alone: any tenant'),
  claims: ClaimMapping,
  /**
   * How long a decision parked for an approver stays valid (ADR 0035): `token` (the default) ends
   * it when the token's exp (and maxTokenAgeS) has passed by the time it resumes; `session` binds
   * it to its token's session (`sid`, checked against revoked_sessions) for the confirmation's
   * lifetime instead, for providers whose tokens live minutes. A token without `sid` keeps `token`.
   */
  parkedDecisions: z.enum(['token', 'session']).default('token'),
  oidc: ConsoleOidcClient.optional(),
});

/** The console's client with its secret read from its file; the rest of the entry as given. */
function withClientSecret(iss: z.output<typeof TrustedIssuerShape>, ctx: z.RefinementCtx) {
  if (!iss.oidc) return { ...iss, oidc: undefined };
  const { clientSecretFile, ...client } = iss.oidc;
  try {
    const clientSecret = readFileSync(clientSecretFile, 'utf8').trim();
    if (clientSecret.length === 0) throw new Error('the file is empty');
    return { ...iss, oidc: { ...client, clientSecret } };
  } catch (e) {
    ctx.addIssue({ code: 'custom', path: ['oidc', 'clientSecretFile'], message: `cannot read ${clientSecretFile}: ${(e as Error).message}` });
    return z.NEVER;
  }
}

export const TrustedIssuer = TrustedIssuerShape.transform(withClientSecret).transform((iss, ctx) => {
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
export type TrustedIssuer = z.output<typeof TrustedIssuer>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Rules across an entry's fields and the profile; each problem names the entry's index. */
export function trustedIssuerProblems(iss: TrustedIssuer, env: { ALLOW_HS256_IDENTITY: boolean; ARVIS_PROFILE: string }): string[] {
  const problems: string[] = [];
  if (iss.alg === 'HS256' && !env.ALLOW_HS256_IDENTITY) problems.push('HS256 issuers need ALLOW_HS256_IDENTITY=true');
  if (iss.alg === 'HS256' && env.ARVIS_PROFILE === 'production') problems.push('HS256 is for local use only, never in production');
  const keySources = [iss.publicKey, iss.jwks, iss.jwksUri].filter((k) => k !== undefined).length;
  if (iss.alg === 'HS256' ? !iss.secret || keySources > 0 : keySources !== 1 || iss.secret) {
    problems.push(iss.alg === 'HS256' ? 'HS256 needs secret, and nothing else' : `${iss.alg} needs exactly one of publicKey, jwksFile or jwksUri, and no secret`);
  }
  if (iss.jwksCache && !iss.jwksUri) problems.push('jwksCache applies to a jwksUri only');
  // Keys fetched in the clear could be swapped on the way; loopback is for local issuers and tests.
  if (iss.jwksUri && env.ARVIS_PROFILE === 'production' && new URL(iss.jwksUri).protocol === 'http:' && !LOOPBACK.has(new URL(iss.jwksUri).hostname)) {
    problems.push('jwksUri must be https in production (http only for a loopback host)');
  }
  return [...problems, ...oidcProblems(iss, env)];
}

const plainHttpOffLoopback = (url: string) => new URL(url).protocol === 'http:' && !LOOPBACK.has(new URL(url).hostname);

/** The provider is discovered at its issuer URL; codes and the ID token travel over both URLs. */
function oidcProblems(iss: TrustedIssuer, env: { ARVIS_PROFILE: string }): string[] {
  if (!iss.oidc) return [];
  const problems: string[] = [];
  if (iss.alg === 'HS256') problems.push('oidc sign-in needs an asymmetric alg (the ID token is verified with the provider\'s published keys)');
  if (!URL.canParse(iss.issuer)) problems.push('oidc sign-in needs the issuer to be its URL (discovery is read from <issuer>/.well-known/openid-configuration)');
  else if (env.ARVIS_PROFILE === 'production' && plainHttpOffLoopback(iss.issuer)) problems.push('an oidc issuer must be https in production (http only for a loopback host)');
  if (env.ARVIS_PROFILE === 'production' && plainHttpOffLoopback(iss.oidc.redirectUri)) problems.push('oidc.redirectUri must be https in production (http only for a loopback host)');
  return problems;
}
