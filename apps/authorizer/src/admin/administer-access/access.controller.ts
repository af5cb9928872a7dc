import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { ConsentBody, EgressBody, EndConsoleSessionsBody, RevokeSessionBody } from './access-requests';
import { AdministerAccessService } from './administer-access.service';

/** Admin API: sessions (IdP and console), consents and egress policies (ADR 0036, docs/operations.md). */
@Controller('admin')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class AccessController {
  constructor(private readonly access: AdministerAccessService) {}

  @Post('sessions/revoke')
  @HttpCode(200)
  async revoke(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.access.revokeSession(operatorOf(req.operator!), parseBody(RevokeSessionBody, body)));
  }

  @Post('console-sessions/end')
  @HttpCode(200)
  async endConsoleSessions(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.access.endConsoleSessions(operatorOf(req.operator!), parseBody(EndConsoleSessionsBody, body)));
  }

  @Post('consents/grant')
  @HttpCode(200)
  async grant(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.access.grantConsent(operatorOf(req.operator!), parseBody(ConsentBody, body)));
  }

  @Post('consents/withdraw')
  @HttpCode(200)
  async withdraw(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.access.withdrawConsent(operatorOf(req.operator!), parseBody(ConsentBody, body)));
  }

  @Post('egress-policies')
  @HttpCode(200)
  async egress(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.access.setEgress(operatorOf(req.operator!), parseBody(EgressBody, body)));
  }
}
