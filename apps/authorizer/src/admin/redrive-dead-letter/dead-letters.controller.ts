import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { AdminGuard, type AdminRequest } from '../admin-guard/admin.guard';
import { answer, operatorOf, parseBody } from '../admin-guard/admin-http';
import { DeadLetterBody, RedriveDeadLetterService } from './redrive-dead-letter.service';

/** Admin API: dead letters, named by DLQ, partition and offset (ADR 0036). */
@Controller('admin/dead-letters')
@UseGuards(RateLimitGuard, AdminGuard)
@SkipThrottle({ signIn: true })
export class DeadLettersController {
  constructor(private readonly deadLetters: RedriveDeadLetterService) {}

  @Post('redrive')
  @HttpCode(200)
  async redrive(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.deadLetters.act(operatorOf(req.operator!), parseBody(DeadLetterBody, body), 'redriven'));
  }

  @Post('discard')
  @HttpCode(200)
  async discard(@Req() req: AdminRequest, @Body() body: unknown) {
    return answer(await this.deadLetters.act(operatorOf(req.operator!), parseBody(DeadLetterBody, body), 'discarded'));
  }
}
