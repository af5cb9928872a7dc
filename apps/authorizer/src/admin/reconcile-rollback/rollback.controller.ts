import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { ReconcileBody, ReconcileRollbackService } from './reconcile-rollback.service';

/** Admin API: reconciling a database restored from an older dump with the journal topic (ADR 0055). */
@Controller('admin/store')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class RollbackController {
  constructor(private readonly rollback: ReconcileRollbackService) {}

  @Post('reconcile-rollback')
  @HttpCode(200)
  async reconcile(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.rollback.reconcile(operatorOf(req.operator!), parseBody(ReconcileBody, body)));
  }
}
