import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { bearerTokenOf, BearerTokenService } from '../../policy/authenticate-bearer/bearer-token.service';

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
  private readonly log = new Logger('Admin');

  constructor(private readonly bearer: BearerTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AdminRequest>();
    req.operator = await this.bearer.authenticate(bearerTokenOf(req.headers), 'admin', ADMIN_ROLE, this.log);
    return true;
  }
}
