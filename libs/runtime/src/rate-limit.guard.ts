import { createHash } from 'node:crypto';
import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';

/**
 * The throttler's guard, answering 429 with a plain `Retry-After` (seconds) whichever named limit
 * was hit, as HTTP clients expect; the throttler itself only sends `Retry-After-<name>` for
 * named limits. The API's controllers name it before their authentication guard (ADR 0038).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    context.switchToHttp().getResponse<{ header(name: string, value: string): void }>().header('Retry-After', String(Math.max(1, Math.ceil(detail.timeToBlockExpire))));
    return super.throwThrottlingException(context, detail);
  }
}

interface TrackedRequest {
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The client's address: Express's `req.ip`, which follows X-Forwarded-For only through trusted proxies (TRUST_PROXY). */
export const byAddress = (req: Record<string, unknown>): Promise<string> => Promise.resolve(`address:${(req as unknown as TrackedRequest).ip ?? 'unknown'}`);

/**
 * The credential a request carries (a bearer token, or the console's session cookie), by SHA-256:
 * a principal's own key that only its holder can spend, so approvers behind one address do not
 * share one budget. Without a credential, the address.
 */
export const byCredentialOrAddress = (req: Record<string, unknown>): Promise<string> => {
  const { headers } = req as unknown as TrackedRequest;
  const credential = headers['authorization'] ?? headers['cookie'];
  if (typeof credential === 'string' && credential !== '') return Promise.resolve(`credential:${createHash('sha256').update(credential).digest('hex')}`);
  return byAddress(req);
};
