import { Inject, Injectable } from '@nestjs/common';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyLike } from 'jose';
import { KERNEL_PRINCIPAL, type VerifiedIdentity } from '@arvis/effect-context';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

export type IdentityResult =
  | { ok: true; identity: VerifiedIdentity }
  | { ok: false; reasonCode: 'identity_invalid' | 'authenticated_principal_required'; detail: string };

type IssuerKey = { alg: string; key: KeyObject | KeyLike; keySet?: undefined } | { alg: string; keySet: JWTVerifyGetKey; key?: undefined };

/** Verifies the decision's JWT against the configured trusted issuers and maps its claims. */
@Injectable()
export class VerifyIdentityService {
  private keys?: Map<string, IssuerKey>;

  constructor(@Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig) {}

  private async issuerKeys(): Promise<Map<string, IssuerKey>> {
    if (this.keys) return this.keys;
    const map = new Map<string, IssuerKey>();
    for (const iss of this.config.identity.issuers) {
      if (iss.jwks) {
        // jose picks the key by the token's kid (and alg); a token matching none is refused.
        map.set(iss.issuer, { alg: iss.alg, keySet: createLocalJWKSet(iss.jwks as Parameters<typeof createLocalJWKSet>[0]) });
        continue;
      }
      const key =
        iss.alg === 'HS256' ? createSecretKey(Buffer.from(iss.secret!, 'utf8')) : await importSPKI(iss.publicKey!, iss.alg);
      map.set(iss.issuer, { alg: iss.alg, key });
    }
    this.keys = map;
    return map;
  }

  /** `now` is the clock to judge expiry by (database time at admission). */
  async verify(token: string, now: Date = new Date()): Promise<IdentityResult> {
    const keys = await this.issuerKeys();
    let iss: string | undefined;
    try {
      const [, body] = token.split('.');
      iss = (JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as JWTPayload).iss;
    } catch {
      return { ok: false, reasonCode: 'identity_invalid', detail: 'token is not a readable JWT' };
    }
    const trusted = iss ? keys.get(iss) : undefined;
    if (!trusted) return { ok: false, reasonCode: 'identity_invalid', detail: `issuer ${JSON.stringify(iss ?? null)} is not trusted` };
    let payload: JWTPayload;
    try {
      const options = {
        issuer: iss,
        algorithms: [trusted.alg],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: this.config.identity.clockSkewS,
        currentDate: now,
      };
      ({ payload } = trusted.keySet ? await jwtVerify(token, trusted.keySet, options) : await jwtVerify(token, trusted.key, options));
    } catch (e) {
      const detail =
        e instanceof joseErrors.JWTExpired
          ? 'token expired'
          : e instanceof joseErrors.JOSEError
            ? `${e.code}: ${e.message}`
            : 'token verification failed';
      return { ok: false, reasonCode: 'identity_invalid', detail };
    }
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    const principal = str(payload.sub);
    const tenant = str(payload['tenant']);
    const serviceId = str(payload['azp']);
    if (!principal || !tenant || !serviceId) {
      return { ok: false, reasonCode: 'identity_invalid', detail: 'token lacks sub, tenant or azp' };
    }
    if (principal === KERNEL_PRINCIPAL) {
      return { ok: false, reasonCode: 'authenticated_principal_required', detail: 'the kernel principal is not a user identity' };
    }
    const roles = Array.isArray(payload['roles']) ? payload['roles'].filter((r): r is string => typeof r === 'string') : [];
    return {
      ok: true,
      identity: {
        principal,
        tenant,
        issuer: iss!,
        authenticationStrength: str(payload['acr']) ?? 'unspecified',
        serviceId,
        sessionId: str(payload['sid']),
        roles,
        expiresAt: new Date(payload.exp! * 1000),
      },
    };
  }
}
