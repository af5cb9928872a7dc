import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ApproverComment } from '@arvis/contracts';
import { SkipThrottle } from '@nestjs/throttler';
import { ApiError, RateLimitGuard } from '@arvis/runtime';
import { ListConfirmationsService } from '../list-confirmations/list-confirmations.service';
import { parsePageQuery } from '../list-confirmations/pending-confirmation';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { ApproveConfirmationService, type DecideOutcome, type VerdictOptions } from './approve-confirmation.service';
import { ApproverGuard, type ApproverRequest } from './approver.guard';

// [status, error, message]; the error is the typed reason a client matches on.
export const STATUS: Record<Exclude<DecideOutcome, 'ok'>, [HttpStatus, string, string]> = {
  not_found: [HttpStatus.NOT_FOUND, 'not_found', 'no such confirmation'],
  other_tenant: [HttpStatus.FORBIDDEN, 'other_tenant', 'the confirmation belongs to another tenant'],
  own_request: [HttpStatus.FORBIDDEN, 'own_request', 'the requester cannot approve or deny their own action'],
  own_request_unprovable: [
    HttpStatus.FORBIDDEN,
    'own_request',
    "the approver's issuer is not the requester's, and without a person key from both issuers the approver cannot be told from the requester",
  ],
  not_pending: [HttpStatus.CONFLICT, 'not_pending', 'the confirmation is no longer pending'],
  typed_confirmation_required: [HttpStatus.UNPROCESSABLE_ENTITY, 'typed_confirmation_required', "the tool is irreversible: type the tool's name to approve it"],
};

/** A verdict's optional body: `{"comment": "..."}` (and, from the console, `typedConfirmation`). */
const VerdictBody = z.union([
  z.strictObject({ comment: ApproverComment.optional(), typedConfirmation: z.string().max(200).optional() }),
  z.undefined(),
  z.null(),
]);

/** The verdict body, or a 400 naming what is wrong with it. An empty body is no comment. */
export function verdictBodyOf(body: unknown): { comment: string | null; typed: string | null } {
  const empty = body !== null && typeof body === 'object' && Object.keys(body).length === 0;
  const parsed = VerdictBody.safeParse(empty ? undefined : body);
  if (!parsed.success) {
    throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message: 'the body may be {"comment": "<one line, at most 500 characters>"}' });
  }
  return { comment: parsed.data?.comment ?? null, typed: parsed.data?.typedConfirmation ?? null };
}

/**
 * The approver API (bearer token per request): list a tenant's pending confirmations, approve or
 * deny one. Rate-limited per client address before the token is looked at (ADR 0038).
 */
@Controller('confirmations')
@UseGuards(RateLimitGuard, ApproverGuard)
@SkipThrottle({ signIn: true })
export class ConfirmationsController {
  constructor(
    private readonly confirmations: ApproveConfirmationService,
    private readonly listing: ListConfirmationsService,
  ) {}

  /** One page, oldest first: `?limit=` (default 50, at most 200) and `?after=<last confirmationId>`. */
  @Get()
  list(@Req() req: ApproverRequest, @Query('limit') limit?: unknown, @Query('after') after?: unknown) {
    const page = parsePageQuery(limit, after);
    if (!page.ok) throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message: page.message });
    return this.listing.pending(req.approver!.tenant, page.limit, page.after);
  }

  @Post(':id/approve')
  @HttpCode(200)
  approve(@Param('id') id: string, @Req() req: ApproverRequest, @Body() body: unknown) {
    return this.decide(id, req, 'approved', body);
  }

  @Post(':id/deny')
  @HttpCode(200)
  deny(@Param('id') id: string, @Req() req: ApproverRequest, @Body() body: unknown) {
    return this.decide(id, req, 'denied', body);
  }

  private decide(id: string, req: ApproverRequest, to: 'approved' | 'denied', body: unknown) {
    return decideOrThrow(this.confirmations, id, req.approver!, to, { comment: verdictBodyOf(body).comment });
  }
}

/** The API's and the console's answer to a verdict: the new status, or the refusal as an error. */
export async function decideOrThrow(service: ApproveConfirmationService, id: string, approver: VerifiedIdentity, to: 'approved' | 'denied', opts: VerdictOptions = {}) {
  const outcome = await service.decide(id, approver, to, opts);
  if (outcome !== 'ok') {
    const [status, error, message] = STATUS[outcome];
    throw new ApiError(status, error, { message });
  }
  return { confirmationId: id, status: to };
}
