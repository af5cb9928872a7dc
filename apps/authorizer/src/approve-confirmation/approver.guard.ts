import { type CanActivate, type ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { VerifyIdentityService } from '../verify-identity/verify-identity.service';

export interface ApproverRequest {
  headers: Record<string, string | undefined>;
  approver?: VerifiedIdentity;
}

/** Bearer JWT from a trusted issuer carrying the `approver` role: 401 without it, 403 without the role. */
@Injectable()
export class ApproverGuard implements CanActivate {
  constructor(private readonly identity: VerifyIdentityService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ApproverRequest>();
    const header = req.headers['authorization'] ?? '';
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    if (!token) throw new HttpException({ error: 'unauthenticated', message: 'a Bearer token is required' }, HttpStatus.UNAUTHORIZED);
    const verified = await this.identity.verify(token);
    if (!verified.ok) throw new HttpException({ error: 'unauthenticated', message: verified.detail }, HttpStatus.UNAUTHORIZED);
    if (!verified.identity.roles.includes('approver')) {
      throw new HttpException({ error: 'forbidden', message: 'the approver role is required' }, HttpStatus.FORBIDDEN);
    }
    req.approver = verified.identity;
    return true;
  }
}
