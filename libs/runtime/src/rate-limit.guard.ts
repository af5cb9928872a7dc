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
