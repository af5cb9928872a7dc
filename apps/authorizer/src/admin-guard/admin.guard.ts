import { type CanActivate, type ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { PrismaService } from '@arvis/persistence';
import { VerifyIdentityService } from '../verify-identity/verify-identity.service';

export interface AdminRequest {
  headers: Record<string, string | undefined>;
  operator?: VerifiedIdentity;
}

/** The role an operator's token must carry for the admin API (ADR 0036). */
export const ADMIN_ROLE = 'admin';

/**
 * Bearer JWT from a trusted issuer, judged for the `admin` use (the issuer's `audience.admin`),
 * carrying the `admin` role: 401 without it (or expired by the database's clock, or its session
 * revoked by then), 403 without the role. Every refusal is a typed body `{error, message}`.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly identity: VerifyIdentityService,
    private readonly prisma: PrismaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AdminRequest>();
    const token = /^Bearer (.+)$/.exec(req.headers['authorization'] ?? '')?.[1];
    if (!token) throw new HttpException({ error: 'unauthenticated', message: 'a Bearer token is required' }, HttpStatus.UNAUTHORIZED);
    const [{ now }] = await this.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const verified = await this.identity.verify(token, now, 'admin');
    if (!verified.ok) throw new HttpException({ error: 'unauthenticated', message: verified.detail }, HttpStatus.UNAUTHORIZED);
    const { sessionId } = verified.identity;
    if (sessionId !== null) {
      const [{ revoked }] = await this.prisma.$queryRaw<{ revoked: boolean }[]>`
        SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE session_id_hash = ${sha256Hex(sessionId)} AND revoked_at <= now()) AS revoked`;
      if (revoked) throw new HttpException({ error: 'unauthenticated', message: 'the session was revoked' }, HttpStatus.UNAUTHORIZED);
    }
    if (!verified.identity.roles.includes(ADMIN_ROLE)) {
      throw new HttpException({ error: 'forbidden', message: `the ${ADMIN_ROLE} role is required` }, HttpStatus.FORBIDDEN);
    }
    req.operator = verified.identity;
    return true;
  }
}
