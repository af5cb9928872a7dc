import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { type VerifiedIdentity } from '@arvis/effect-context';
import { bearerTokenOf, BearerTokenService } from '../../policy/authenticate-bearer/bearer-token.service';

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

  constructor(private readonly bearer: BearerTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ApproverRequest>();
    req.approver = await this.authenticate(bearerTokenOf(req.headers));
    return true;
  }

  /** The one check of an approver's token, for the API (per request) and the console's sign-in. */
  authenticate(token: string): Promise<VerifiedIdentity> {
    return this.bearer.authenticate(token, 'approval', 'approver', this.log);
  }
}
