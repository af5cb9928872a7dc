import { HttpStatus, Injectable, type Logger } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { Database } from '@arvis/persistence';
import { ApiError } from '@arvis/runtime';
import type { TokenUse } from '../verify-identity/issuer-policy';
import { VerifyIdentityService } from '../verify-identity/verify-identity.service';

/** The token of an `Authorization: Bearer …` header, or a 401. */
export function bearerTokenOf(headers: Record<string, string | undefined>): string {
  const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
  if (!token) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'a Bearer token is required' });
  return token;
}

/**
 * The one check of a bearer token for the HTTP surfaces (approver API, console sign-in, admin
 * API): a trusted issuer's token judged for `use` by the database's clock, its session not
 * revoked by then, carrying `role` (null: no role needed, a requester reading its own decisions).
 * The identity, or an ApiError: 401, or 403 without the role.
 * A refusal's detail goes to `log`; the answer names our issuer rule when one refused it, never
 * the JWT library's text (ADR 0038).
 */
@Injectable()
export class BearerTokenService {
  constructor(
    private readonly identity: VerifyIdentityService,
    private readonly db: Database,
  ) {}

  async authenticate(token: string, use: TokenUse, role: string | null, log: Logger): Promise<VerifiedIdentity> {
    const [{ now }] = await this.db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const verified = await this.identity.verify(token, now, use);
    if (!verified.ok) {
      log.log({ msg: 'token refused', role, reasonCode: verified.reasonCode, detail: verified.detail });
      const message = verified.rule ? verified.detail : 'the token was not accepted (expired, not signed by a trusted issuer, or unreadable)';
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { reasonCode: verified.reasonCode, message });
    }
    return this.admit(verified.identity, role);
  }

  /**
   * What every verified identity must still pass, however it was verified (a bearer token here,
   * an ID token at the console's OIDC callback): its session not revoked, and the role.
   */
  async admit(identity: VerifiedIdentity, role: string | null): Promise<VerifiedIdentity> {
    if (identity.sessionId !== null && (await this.revoked(identity.sessionId))) {
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'the session was revoked' });
    }
    if (role !== null && !identity.roles.includes(role)) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'forbidden', { message: `the ${role} role is required` });
    }
    return identity;
  }

  /** Revoked as of the database's clock, like admission's check. */
  private async revoked(sessionId: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ revoked: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE session_id_hash = ${sha256Hex(sessionId)} AND revoked_at <= now()) AS revoked`;
    return rows[0].revoked;
  }
}
