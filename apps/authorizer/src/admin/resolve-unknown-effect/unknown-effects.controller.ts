import { Body, Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { ResolveBody, ResolveUnknownEffectService } from './resolve-unknown-effect.service';

/** Admin API: resolve an effect_state_unknown once the outside world was checked (ADR 0036). */
@Controller('admin/effects')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class UnknownEffectsController {
  constructor(private readonly resolver: ResolveUnknownEffectService) {}

  @Post(':decisionId/resolve')
  @HttpCode(200)
  async resolve(@Req() req: AdminRequest, @Param('decisionId') decisionId: string, @Body() body: unknown) {
    return answer(await this.resolver.resolve(operatorOf(req.operator!), decisionId, parseBody(ResolveBody, body)));
  }
}
