import { Body, Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { QuarantineBody, ReleaseQuarantinedService } from './release-quarantined.service';

/** Admin API: quarantined outbox rows (list them with `cli outbox --quarantined`). */
@Controller('admin/outbox')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class QuarantinedController {
  constructor(private readonly quarantined: ReleaseQuarantinedService) {}

  @Post(':seq/release')
  @HttpCode(200)
  async release(@Req() req: AdminRequest, @Param('seq') seq: string, @Body() body: unknown) {
    return answer(await this.quarantined.act(operatorOf(req.operator!), seq, 'release', parseBody(QuarantineBody, body)));
  }

  @Post(':seq/discard')
  @HttpCode(200)
  async discard(@Req() req: AdminRequest, @Param('seq') seq: string, @Body() body: unknown) {
    return answer(await this.quarantined.act(operatorOf(req.operator!), seq, 'discard', parseBody(QuarantineBody, body)));
  }
}
