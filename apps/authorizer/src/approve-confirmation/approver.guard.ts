import { type CanActivate, type ExecutionContext, HttpStatus, Injectable, Logger } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { PrismaService } from '@arvis/persistence';
import { ApiError } from '@arvis/runtime';
import { VerifyIdentityService } from '../verify-identity/verify-identity.service';

export interface ApproverRequest {
  headers: Record<string, string | undefined>;
  approver?: VerifiedIdentity;
}

/**
 * Bearer JWT from a trusted issuer carrying the `approver` role: 401 without it (or with a token
 * expired by the database's clock, or a session revoked by then), 403 without the role.
 */
@Injectable()
export class ApproverGuard implements CanActivate {
  private readonly log = new Logger('Approvers');

  constructor(
    private readonly identity: VerifyIdentityService,
    private readonly prisma: PrismaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ApproverRequest>();
    const header = req.headers['authorization'] ?? '';
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    if (!token) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'a Bearer token is required' });
    req.approver = await this.authenticate(token);
    return true;
  }

  /**
   * The one check of an approver's token, for the API (per request) and the console's sign-in:
   * the identity, or an ApiError (401/403). A refusal's detail is logged; the answer names our
   * issuer rule when one refused it, never the JWT library's text.
   */
  async authenticate(token: string): Promise<VerifiedIdentity> {
    const [{ now }] = await this.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const verified = await this.identity.verify(token, now, 'approval');
    if (!verified.ok) {
      this.log.log(`approver token refused: ${verified.detail}`);
      const message = verified.rule ? verified.detail : 'the token was not accepted (expired, not signed by a trusted issuer, or unreadable)';
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { reasonCode: verified.reasonCode, message });
    }
    if (verified.identity.sessionId !== null && (await this.revoked(verified.identity.sessionId))) {
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'the session was revoked' });
    }
    if (!verified.identity.roles.includes('approver')) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'forbidden', { message: 'the approver role is required' });
    }
    return verified.identity;
  }

  /** Revoked as of the database's clock, like admission's check. */
  private async revoked(sessionId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<{ revoked: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE session_id_hash = ${sha256Hex(sessionId)} AND revoked_at <= now()) AS revoked`;
    return rows[0].revoked;
  }
}
