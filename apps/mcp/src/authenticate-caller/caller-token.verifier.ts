import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpIssuer } from '../config/mcp.config';

type Key = KeyObject | JWTVerifyGetKey;

/**
 * The front door's own check of a caller's token (MCP authorization: it is a resource server).
 * Signed by a configured issuer and `aud` naming this server's URI, or refused with 401: a token
 * minted for another service (the authorizer's approvals, another MCP server) never passes. The
 * authorizer checks the same token again, with all of its issuer's rules, when the decision
 * arrives (ADR 0074): this check gates the door, it does not replace that one.
 */
export class CallerTokenVerifier implements OAuthTokenVerifier {
  private readonly keys = new Map<string, { alg: string; key: Key }>();

  constructor(
    issuers: readonly McpIssuer[],
    private readonly resourceUri: string,
  ) {
    for (const i of issuers) {
      // A JWKS URL is fetched, cached and refetched for an unknown kid by jose.
      const key: Key = i.jwksUri ? createRemoteJWKSet(new URL(i.jwksUri)) : createPublicKey(i.publicKey!);
      this.keys.set(i.issuer, { alg: i.alg, key });
    }
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    let iss: string | undefined;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw new InvalidTokenError('not a JWT');
    }
    const trusted = iss === undefined ? undefined : this.keys.get(iss);
    if (!trusted) throw new InvalidTokenError('issuer not trusted');
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      const verified = await jwtVerify(token, trusted.key as KeyObject, { issuer: iss, audience: this.resourceUri, algorithms: [trusted.alg], requiredClaims: ['exp', 'sub'] });
      payload = verified.payload;
    } catch (e) {
      // jose's codes name the failed claim (ERR_JWT_CLAIM_VALIDATION_FAILED "aud"), never the token.
      throw new InvalidTokenError(`token refused: ${(e as Error).message}`);
    }
    return {
      token,
      clientId: typeof payload.azp === 'string' ? payload.azp : payload.sub!,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp,
      // Taken from the token itself, so the SDK's bearer middleware (expectedResource) compares
      // the token's own audience once more, apart from jwtVerify's check above.
      resource: this.resourceOf(payload.aud),
      extra: { issuer: iss, subject: payload.sub },
    };
  }

  /** The token's audience that names this server (jwtVerify required one), else its first; undefined if not a URL. */
  private resourceOf(aud: string | string[] | undefined): URL | undefined {
    const list = aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
    const value = list.find((a) => a === this.resourceUri) ?? list[0];
    return value !== undefined && URL.canParse(value) ? new URL(value) : undefined;
  }
}
