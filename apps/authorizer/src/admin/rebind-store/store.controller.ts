import { Body, Controller, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { RebindBody, RebindStoreService } from './rebind-store.service';

/** Admin API: the store's identity, and its re-binding after a restore (docs/operations.md). */
@Controller('admin/store')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class StoreController {
  constructor(private readonly store: RebindStoreService) {}

  @Get()
  view() {
    return this.store.view();
  }

  @Post('rebind')
  @HttpCode(200)
  async rebind(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.store.rebind(operatorOf(req.operator!), parseBody(RebindBody, body)));
  }
}
