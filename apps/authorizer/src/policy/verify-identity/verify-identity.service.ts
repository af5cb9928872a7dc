import { Inject, Injectable, Optional } from '@nestjs/common';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyLike } from 'jose';
import { Counter } from 'prom-client';
import { sha256Hex } from '@arvis/crypto';
import { KERNEL_PRINCIPAL, type VerifiedIdentity } from '@arvis/effect-context';
import { MetricsRegistry } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig, type TrustedIssuer } from '../../config/authorizer.config';
import { evaluateIssuerPolicy, identityOfClaims, KERNEL_PRINCIPAL_REFUSED, type IssuerPolicy, type IssuerRule, type MappedClaims, type TokenUse } from './issuer-policy';
import { issuerRulesSha256, recheckStoredIdentity, restoreIdentity, storeIdentity, type StoredIdentity } from './stored-identity';
import { VerifiedTokenCache, type VerifiedToken } from './verified-token-cache';

/** A verified identity comes with what the system may keep of it instead of the token (ADR 0035). */
export type IdentityResult =
  | { ok: true; identity: VerifiedIdentity; stored: StoredIdentity }
  | { ok: false; reasonCode: 'identity_invalid' | 'authenticated_principal_required'; detail: string; rule?: IssuerRule };

type IssuerKey = ({ alg: string; key: KeyObject | KeyLike; keySet?: undefined } | { alg: string; keySet: JWTVerifyGetKey; key?: undefined }) & {
  policy: IssuerPolicy;
  remote?: boolean;
  rulesSha256: string;
  parkedDecisions: 'token' | 'session';
};

/** Enough for a few minutes of distinct tokens at thousands of decisions per second, a few MB. */
const DEFAULT_CACHE_ENTRIES = 10_000;

const policyOf = (iss: TrustedIssuer, profile: string): IssuerPolicy => ({
  adminAudienceRequired: profile === 'production',
  audience: iss.audience,
  tokenTypes: iss.tokenTypes,
  maxTokenAgeS: iss.maxTokenAgeS,
  tenants: iss.tenants,
  claims: iss.claims,
});

/** Verifies the decision's JWT against the configured trusted issuers and maps its claims. */
@Injectable()
export class VerifyIdentityService {
  private keys?: Promise<Map<string, IssuerKey>>;
  private readonly cache: VerifiedTokenCache<IssuerKey>;
  private readonly lookups: Counter<'result'>;

  constructor(@Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig, @Optional() metrics?: MetricsRegistry) {
    this.cache = new VerifiedTokenCache(config.identity.cacheMaxEntries ?? DEFAULT_CACHE_ENTRIES, config.identity.clockSkewS);
    this.lookups = new Counter({
      name: 'arvis_identity_token_cache_lookups_total',
      help: 'Tokens presented for verification, by whether a cached signature verification served them (hit) or not (miss)',
      labelNames: ['result'],
      registers: metrics ? [metrics] : [],
    });
  }

  /** Built once: the first calls of a slice, concurrent, share one build (and one remote key set per issuer). */
  private issuerKeys(): Promise<Map<string, IssuerKey>> {
    return (this.keys ??= this.buildIssuerKeys());
  }

  private async buildIssuerKeys(): Promise<Map<string, IssuerKey>> {
    const map = new Map<string, IssuerKey>();
    for (const iss of this.config.identity.issuers) {
      const policy = policyOf(iss, this.config.profile);
      const rules = { policy, rulesSha256: issuerRulesSha256(iss), parkedDecisions: iss.parkedDecisions };
      if (iss.jwksUri) {
        // Fetched on first use, again once cacheMaxAge has passed, and for an unknown kid (at most
        // once per cooldown): a rotated key works without a restart, a retired one stops
        // working when the cached set ages out.
        const keySet = createRemoteJWKSet(new URL(iss.jwksUri), {
          cacheMaxAge: iss.jwksCache?.maxAgeMs ?? 600_000,
          cooldownDuration: iss.jwksCache?.cooldownMs ?? 30_000,
          timeoutDuration: iss.jwksCache?.timeoutMs ?? 5_000,
        });
        map.set(iss.issuer, { alg: iss.alg, keySet, ...rules, remote: true });
        continue;
      }
      if (iss.jwks) {
        // jose picks the key by the token's kid (and alg); a token matching none is refused.
        map.set(iss.issuer, { alg: iss.alg, keySet: createLocalJWKSet(iss.jwks as Parameters<typeof createLocalJWKSet>[0]), ...rules });
        continue;
      }
      const key =
        iss.alg === 'HS256' ? createSecretKey(Buffer.from(iss.secret!, 'utf8')) : await importSPKI(iss.publicKey!, iss.alg);
      map.set(iss.issuer, { alg: iss.alg, key, ...rules });
    }
    return map;
  }

  /**
   * `now` is the clock to judge expiry and age by (database time at admission); `use` chooses
   * the audience the issuer requires (decisions or approvals).
   */
  async verify(token: string, now: Date = new Date(), use: TokenUse = 'decision'): Promise<IdentityResult> {
    const keys = await this.issuerKeys();
    const tokenSha256 = sha256Hex(token);
    // No await between a miss and `remember` in verifyInFull: the decisions of a slice that share
    // a token, verified together, wait for the first one's verification.
    const found = this.cache.lookup(tokenSha256, now);
    const cached = found && (await this.cached(tokenSha256, found));
    this.lookups.inc({ result: cached ? 'hit' : 'miss' });
    const verified = cached ?? (await this.verifyInFull(token, tokenSha256, keys, now));
    if ('ok' in verified) return verified;
    // What depends on the use and on the issuer's rules is judged at every use, hit or not.
    const { header, payload, issuer: trusted } = verified;
    const judged = evaluateIssuerPolicy(trusted.policy, { header, payload }, { use, now, clockSkewS: this.config.identity.clockSkewS });
    if (!judged.ok) return { ok: false, reasonCode: 'identity_invalid', detail: judged.detail, rule: judged.rule };
    return this.identityOf(judged.claims, payload, trusted, tokenSha256);
  }

  /**
   * A cached verification still good at `now`. For a JWKS URL the key set is asked for the key
   * again (no crypto; jose fetches the set when it is older than its max age, as for a full
   * verification): only the very key object that verified the token counts, so a set fetched
   * again, or a key retired from it, sends the token through full verification (ADR 0031's grace).
   */
  private async cached(tokenSha256: string, found: Promise<VerifiedToken<IssuerKey> | undefined>): Promise<VerifiedToken<IssuerKey> | undefined> {
    const hit = await found;
    if (!hit || !hit.issuer.remote) return hit;
    const key = await Promise.resolve(hit.issuer.keySet!(hit.header, { payload: '', signature: '' })).catch(() => undefined);
    if (key === hit.key) return hit;
    this.cache.forget(tokenSha256);
    return undefined;
  }

  private async verifyInFull(token: string, tokenSha256: string, keys: Map<string, IssuerKey>, now: Date): Promise<VerifiedToken<IssuerKey> | IdentityResult> {
    let iss: string | undefined;
    try {
      const [, body] = token.split('.');
      iss = (JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as JWTPayload).iss;
    } catch {
      return { ok: false, reasonCode: 'identity_invalid', detail: 'token is not a readable JWT' };
    }
    const trusted = iss ? keys.get(iss) : undefined;
    if (!trusted) return { ok: false, reasonCode: 'identity_invalid', detail: `issuer ${JSON.stringify(iss ?? null)} is not trusted` };
    const verifying = this.verifySignature(token, iss!, trusted, now);
    this.cache.remember(tokenSha256, verifying.then((v) => ('ok' in v ? undefined : v)));
    return verifying;
  }

  private async verifySignature(token: string, iss: string, trusted: IssuerKey, now: Date): Promise<VerifiedToken<IssuerKey> | IdentityResult> {
    const options = { issuer: iss, algorithms: [trusted.alg], requiredClaims: ['exp'], clockTolerance: this.config.identity.clockSkewS, currentDate: now };
    let key: unknown = trusted.key;
    const { keySet } = trusted;
    // The key the set resolved is kept with the result: the cache compares it at each hit.
    const getKey: JWTVerifyGetKey | undefined = keySet && (async (h, t) => (key = await keySet(h, t)) as KeyLike);
    try {
      const { payload, protectedHeader: header } = getKey ? await jwtVerify(token, getKey, options) : await jwtVerify(token, trusted.key!, options);
      return { header, payload, issuer: trusted, key };
    } catch (e) {
      const detail =
        e instanceof joseErrors.JWTExpired
          ? 'token expired'
          : e instanceof joseErrors.JOSEError
            ? `${e.code}: ${e.message}`
            : trusted.remote
              ? // The key set could not be fetched (connection refused, DNS): the token is not judged.
                `jwks_unavailable: ${(e as Error).message}`
              : 'token verification failed';
      return { ok: false, reasonCode: 'identity_invalid', detail };
    }
  }

  private identityOf(claims: MappedClaims, payload: JWTPayload, trusted: IssuerKey, tokenSha256: string): IdentityResult {
    const identity = identityOfClaims(claims, payload, payload.iss!);
    if (!identity) return { ok: false, reasonCode: 'authenticated_principal_required', detail: KERNEL_PRINCIPAL_REFUSED };
    return { ok: true, identity, stored: storeIdentity(identity, tokenSha256, trusted.rulesSha256) };
  }

  /**
   * A stored identity (a retry, a resumed confirmation, admission) judged again without its
   * token: against the issuer's current entry and `now`, database time (ADR 0035).
   */
  async recheck(stored: StoredIdentity, now: Date, resumed = false): Promise<IdentityResult> {
    const trusted = (await this.issuerKeys()).get(stored.issuer);
    const issuer = trusted && { rulesSha256: trusted.rulesSha256, maxTokenAgeS: trusted.policy.maxTokenAgeS, parkedDecisions: trusted.parkedDecisions };
    const judged = recheckStoredIdentity(stored, issuer, { now, clockSkewS: this.config.identity.clockSkewS, resumed });
    if (!judged.ok) return { ok: false, reasonCode: 'identity_invalid', detail: judged.detail };
    if (stored.principal === KERNEL_PRINCIPAL) {
      return { ok: false, reasonCode: 'authenticated_principal_required', detail: 'the kernel principal is not a user identity' };
    }
    return { ok: true, identity: restoreIdentity(stored), stored };
  }
}
