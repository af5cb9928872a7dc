import { Controller, Get, HttpStatus, Inject, Logger, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { ApiError, RateLimitGuard } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { bearerTokenOf, BearerTokenService } from '../../policy/authenticate-bearer/bearer-token.service';
import { parseWaitS } from './wait-query';
import { ReadDecisionService } from './read-decision.service';

/**
 * A requester's own results (ADR 0072): `GET /decisions/{id}[?waitS=N]` with the token it sends
 * decisions with (the issuer's decisions audience; no role). 200 with the final journal entry,
 * 202 while the decision has none yet, 404 for a decision of another tenant or principal as for
 * one that does not exist. `waitS` long-polls up to RESULT_WAIT_MAX_S.
 */
@Controller('decisions')
@UseGuards(RateLimitGuard)
@SkipThrottle({ signIn: true })
export class DecisionsController {
  private readonly log = new Logger('Requesters');

  constructor(
    private readonly bearer: BearerTokenService,
    private readonly reads: ReadDecisionService,
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
  ) {}

  @Get(':id')
  async read(
    @Param('id') id: string,
    @Req() req: { headers: Record<string, string | undefined> },
    @Res({ passthrough: true }) res: { status(code: number): unknown },
    @Query('waitS') waitS?: unknown,
  ) {
    const wait = parseWaitS(waitS, this.config.results.waitMaxS);
    if (!wait.ok) throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message: wait.message });
    const requester = await this.bearer.authenticate(bearerTokenOf(req.headers), 'decision', null, this.log);
    const read = await this.reads.read(requester, id, wait.waitS);
    if (read.status === 'not_found') throw new ApiError(HttpStatus.NOT_FOUND, 'not_found', { message: 'no such decision of this requester' });
    if (read.status === 'pending') res.status(HttpStatus.ACCEPTED);
    return read;
  }
}
