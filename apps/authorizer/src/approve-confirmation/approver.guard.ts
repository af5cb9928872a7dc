import { type CanActivate, type ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { PrismaService } from '@arvis/persistence';
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
  constructor(
    private readonly identity: VerifyIdentityService,
    private readonly prisma: PrismaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ApproverRequest>();
    const header = req.headers['authorization'] ?? '';
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    if (!token) throw new HttpException({ error: 'unauthenticated', message: 'a Bearer token is required' }, HttpStatus.UNAUTHORIZED);
    const [{ now }] = await this.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const verified = await this.identity.verify(token, now, 'approval');
    if (!verified.ok) throw new HttpException({ error: 'unauthenticated', message: verified.detail }, HttpStatus.UNAUTHORIZED);
    if (verified.identity.sessionId !== null && (await this.revoked(verified.identity.sessionId))) {
      throw new HttpException({ error: 'unauthenticated', message: 'the session was revoked' }, HttpStatus.UNAUTHORIZED);
    }
    if (!verified.identity.roles.includes('approver')) {
      throw new HttpException({ error: 'forbidden', message: 'the approver role is required' }, HttpStatus.FORBIDDEN);
    }
    req.approver = verified.identity;
    return true;
  }

  /** Revoked as of the database's clock, like admission's check. */
  private async revoked(sessionId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<{ revoked: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE session_id_hash = ${sha256Hex(sessionId)} AND revoked_at <= now()) AS revoked`;
    return rows[0].revoked;
  }
}
