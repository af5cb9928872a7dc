import { Inject, Injectable, Logger } from '@nestjs/common';
import type * as OpenIdClient from 'openid-client';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { Database } from '@arvis/persistence';
import { ApiError } from '@arvis/runtime';
import { BearerTokenService } from '../../policy/authenticate-bearer/bearer-token.service';
import { AUTHORIZER_CONFIG, type AuthorizerConfig, type TrustedIssuer } from '../../config/authorizer.config';
import { identityOfIdToken } from './id-token-identity';
import { providerUnavailable, refusalOf, REFUSALS, type OidcRefusal } from './oidc-refusal';
import type { PreLogin } from './pre-login-cookie';

type OidcIssuer = TrustedIssuer & { oidc: NonNullable<TrustedIssuer['oidc']> };

export type OidcStart = { ok: true; authorizationUrl: string; preLogin: PreLogin } | { ok: false; refusal: OidcRefusal };
export type OidcCallback = { ok: true; approver: VerifiedIdentity } | { ok: false; refusal: OidcRefusal };

// openid-client is an ES module: loaded once, when a sign-in first needs it.
let library: Promise<typeof OpenIdClient> | undefined;
const openIdClient = () => (library ??= import('openid-client'));

/**
 * Sign-in to the approver console through a trusted issuer's OpenID provider (ADR 0071):
 * authorization code with PKCE, by openid-client. The callback's ID token is checked by the
 * library (signature by the provider's published keys, iss, aud = the console's client id,
 * nonce, exp), then mapped and admitted as a bearer token is. No ID, access or refresh token is
 * kept: the approver's identity goes on into a console session, as a pasted token's does.
 */
@Injectable()
export class OidcSignInService {
  private readonly log = new Logger('ConsoleOidc');
  private readonly issuers: ReadonlyMap<string, OidcIssuer>;
  private readonly discovered = new Map<string, Promise<OpenIdClient.Configuration>>();

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly bearer: BearerTokenService,
    private readonly db: Database,
  ) {
    this.issuers = new Map(config.identity.issuers.filter((i): i is OidcIssuer => i.oidc !== undefined).map((i) => [i.issuer, i]));
  }

  /** The issuers an approver may sign in through, for the console's page. */
  issuerNames(): string[] {
    return [...this.issuers.keys()];
  }

  async start(issuer: string): Promise<OidcStart> {
    const iss = this.issuers.get(issuer);
    if (!iss) return { ok: false, refusal: REFUSALS.issuerUnknown() };
    const client = await openIdClient();
    const config = await this.configurationOf(iss).catch((e: unknown) => {
      this.log.warn({ msg: 'OpenID provider discovery failed', issuer, detail: (e as Error).message });
      return null;
    });
    if (!config) return { ok: false, refusal: providerUnavailable() };
    const preLogin = { issuer, state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: iss.oidc.redirectUri,
      scope: iss.oidc.scope.split(/\s+/).includes('openid') ? iss.oidc.scope : `openid ${iss.oidc.scope}`,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(preLogin.codeVerifier),
      code_challenge_method: 'S256',
      state: preLogin.state,
      nonce: preLogin.nonce,
    });
    return { ok: true, authorizationUrl: url.href, preLogin };
  }

  /** `query`: the callback's query string as the provider sent the browser back with it. */
  async callback(preLogin: PreLogin | null, query: string): Promise<OidcCallback> {
    if (!preLogin) return { ok: false, refusal: REFUSALS.loginNotStarted() };
    const iss = this.issuers.get(preLogin.issuer);
    if (!iss) return { ok: false, refusal: REFUSALS.issuerUnknown() };
    const callbackUrl = new URL(iss.oidc.redirectUri);
    callbackUrl.search = query;
    // Checked before the code is redeemed: a code that came with another sign-in's state is not spent.
    if (callbackUrl.searchParams.get('state') !== preLogin.state) return { ok: false, refusal: REFUSALS.stateMismatch() };
    const client = await openIdClient();
    let claims: Record<string, unknown> | undefined;
    try {
      const config = await this.configurationOf(iss);
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: preLogin.codeVerifier,
        expectedState: preLogin.state,
        expectedNonce: preLogin.nonce,
        idTokenExpected: true,
      });
      // Only the verified claims are read; the tokens themselves go out of scope here.
      claims = tokens.claims() as Record<string, unknown> | undefined;
    } catch (e) {
      const refusal = refusalOf(e);
      this.log.log({ msg: 'console OIDC sign-in refused', issuer: iss.issuer, reasonCode: refusal.error, detail: (e as Error).message });
      return { ok: false, refusal };
    }
    return this.admitted(iss, claims ?? {});
  }

  private async admitted(iss: OidcIssuer, claims: Record<string, unknown>): Promise<OidcCallback> {
    const [{ now }] = await this.db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const mapped = identityOfIdToken(iss, claims, now, this.config.identity.clockSkewS);
    if (!mapped.ok) {
      this.log.log({ msg: 'console OIDC sign-in refused', issuer: iss.issuer, reasonCode: 'identity_invalid', detail: mapped.detail });
      return { ok: false, refusal: { status: 401, error: 'unauthenticated', message: mapped.detail } };
    }
    try {
      return { ok: true, approver: await this.bearer.admit(mapped.identity, 'approver') };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return { ok: false, refusal: { status: e.getStatus(), error: e.error as 'unauthenticated' | 'forbidden', message: e.detail.message ?? e.error } };
    }
  }

  /** Discovery once per issuer; a failed one is forgotten, so the next sign-in asks again. */
  private configurationOf(iss: OidcIssuer): Promise<OpenIdClient.Configuration> {
    let found = this.discovered.get(iss.issuer);
    if (!found) {
      found = openIdClient().then((client) =>
        client.discovery(
          new URL(iss.issuer),
          iss.oidc.clientId,
          { client_secret: iss.oidc.clientSecret, id_token_signed_response_alg: iss.alg },
          client.ClientSecretBasic(iss.oidc.clientSecret),
          // Plain http only where the config allowed it: a loopback provider, or outside production.
          new URL(iss.issuer).protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
        ),
      );
      this.discovered.set(iss.issuer, found);
      found.catch(() => this.discovered.delete(iss.issuer));
    }
    return found;
  }
}
