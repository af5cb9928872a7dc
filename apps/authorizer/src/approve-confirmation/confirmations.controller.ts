import { Controller, Get, HttpCode, HttpException, HttpStatus, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ListConfirmationsService } from '../list-confirmations/list-confirmations.service';
import { parsePageQuery } from '../list-confirmations/pending-confirmation';
import { ApproveConfirmationService, type DecideOutcome } from './approve-confirmation.service';
import { ApproverGuard, type ApproverRequest } from './approver.guard';

// [status, error, message]; the error is the typed reason a client matches on.
const STATUS: Record<Exclude<DecideOutcome, 'ok'>, [HttpStatus, string, string]> = {
  not_found: [HttpStatus.NOT_FOUND, 'not_found', 'no such confirmation'],
  other_tenant: [HttpStatus.FORBIDDEN, 'other_tenant', 'the confirmation belongs to another tenant'],
  own_request: [HttpStatus.FORBIDDEN, 'own_request', 'the requester cannot approve or deny their own action'],
  own_request_unprovable: [
    HttpStatus.FORBIDDEN,
    'own_request',
    "the approver's issuer is not the requester's, and without a person key from both issuers the approver cannot be told from the requester",
  ],
  not_pending: [HttpStatus.CONFLICT, 'not_pending', 'the confirmation is no longer pending'],
};

/** The approver console's API: list a tenant's pending confirmations, approve or deny one. */
@Controller('confirmations')
@UseGuards(ApproverGuard)
export class ConfirmationsController {
  constructor(
    private readonly confirmations: ApproveConfirmationService,
    private readonly listing: ListConfirmationsService,
  ) {}

  /** One page, oldest first: `?limit=` (default 50, at most 200) and `?after=<last confirmationId>`. */
  @Get()
  list(@Req() req: ApproverRequest, @Query('limit') limit?: unknown, @Query('after') after?: unknown) {
    const page = parsePageQuery(limit, after);
    if (!page.ok) throw new HttpException({ error: 'bad_request', message: page.message }, HttpStatus.BAD_REQUEST);
    return this.listing.pending(req.approver!.tenant, page.limit, page.after);
  }

  @Post(':id/approve')
  @HttpCode(200)
  approve(@Param('id') id: string, @Req() req: ApproverRequest) {
    return this.decide(id, req, 'approved');
  }

  @Post(':id/deny')
  @HttpCode(200)
  deny(@Param('id') id: string, @Req() req: ApproverRequest) {
    return this.decide(id, req, 'denied');
  }

  private async decide(id: string, req: ApproverRequest, to: 'approved' | 'denied') {
    const outcome = await this.confirmations.decide(id, req.approver!, to);
    if (outcome !== 'ok') {
      const [status, error, message] = STATUS[outcome];
      throw new HttpException({ error, message }, status);
    }
    return { confirmationId: id, status: to };
  }
}
