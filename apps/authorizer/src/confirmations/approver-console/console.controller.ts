import { Body, Controller, Delete, Get, Header, HttpCode, HttpStatus, Inject, Param, Post, Query, Req, Res, Sse, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import type { Observable } from 'rxjs';
import { z } from 'zod';
import { ApiError, RateLimitGuard } from '@arvis/runtime';
import { ApproveConfirmationService } from '../approve-confirmation/approve-confirmation.service';
import { decideOrThrow, verdictBodyOf } from '../approve-confirmation/confirmations.controller';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { parseHistoryQuery } from '../list-verdicts/history-query';
import { ListVerdictsService } from '../list-verdicts/list-verdicts.service';
import { OidcSignInService } from '../sign-in-with-oidc/oidc-sign-in.service';
import { CONSOLE_CSS, CONSOLE_JS, consoleHtml } from './console-page';
import { ConsoleEventsService, type ConsoleEvent } from './console-events.service';
import { ConsoleSessionGuard, type ConsoleRequest } from './console-session.guard';
import { ConsoleSessionsService, type ConsoleSessionView, type SignedIn } from './console-sessions.service';
import { sessionCookie } from './cookies';
import { mintDevApproverToken } from './dev-sign-in';
import { signInRefusal, type SignInRequestHeaders } from './sign-in-origin';

interface CookieResponse {
  setHeader(name: string, value: string): void;
}

const SignInBody = z.object({ token: z.string().min(1).max(16_384) });

const viewOf = (s: SignedIn): ConsoleSessionView => ({ principal: s.principal, tenant: s.tenant, issuer: s.issuer, expiresAt: s.expiresAt, csrfToken: s.csrfToken });

/**
 * The approver console (ADR 0037): its page, sign-in with a pasted token where CONSOLE_TOKEN_SIGN_IN
 * allows it (in the body, never a URL) exchanged for a session cookie (OIDC sign-in: ADR 0071),
 * verdicts with a CSRF header, and an event stream of the tenant's pending confirmations. Verdicts go through the approver API's own service and rules.
 * Rate-limited per client address; sign-ins (each verifies a token) more tightly (ADR 0038).
 */
@Controller('console')
@UseGuards(RateLimitGuard)
@SkipThrottle({ signIn: true })
export class ConsoleController {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly sessions: ConsoleSessionsService,
    private readonly events: ConsoleEventsService,
    private readonly confirmations: ApproveConfirmationService,
    private readonly guard: ConsoleSessionGuard,
    private readonly verdicts: ListVerdictsService,
    private readonly oidc: OidcSignInService,
  ) {}

  /**
   * The page. Its links are relative to its own URL, so it works under any path prefix a proxy
   * puts in front (ADR 0069); `/console/` is sent to `../console`, where they resolve.
   */
  @Get()
  @Header('Cache-Control', 'no-store')
  page(@Req() req: { originalUrl?: string; url: string }, @Res({ passthrough: true }) res: CookieResponse & { status(code: number): unknown }): string {
    const path = (req.originalUrl ?? req.url).split('?', 1)[0];
    if (path.endsWith('/')) {
      res.status(308);
      res.setHeader('Location', '../console');
      return '';
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    return consoleHtml({ devSignIn: this.config.console.devSignIn !== null, tokenSignIn: this.config.console.tokenSignIn, oidcIssuers: this.oidc.issuerNames() });
  }

  @Get('console.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  script(): string {
    return CONSOLE_JS;
  }

  @Get('console.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  style(): string {
    return CONSOLE_CSS;
  }

  @Post('session')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @SkipThrottle({ signIn: false })
  async signIn(@Body() body: unknown, @Req() req: { headers: SignInRequestHeaders }, @Res({ passthrough: true }) res: CookieResponse): Promise<ConsoleSessionView> {
    if (!this.config.console.tokenSignIn) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'token_sign_in_disabled', { message: 'this console does not take pasted tokens (CONSOLE_TOKEN_SIGN_IN is off): sign in through your OpenID provider' });
    }
    refuseCrossSite(req.headers);
    const parsed = SignInBody.safeParse(body);
    if (!parsed.success) throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message: 'the body must be {"token": "<approver JWT>"}' });
    return this.started(await this.sessions.signIn(parsed.data.token), res);
  }

  /** Development profile only: 404 unless CONSOLE_DEV_ISSUER_KEY is set (refused elsewhere at start-up). */
  @Post('dev-session')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @SkipThrottle({ signIn: false })
  async devSignIn(@Req() req: { headers: SignInRequestHeaders }, @Res({ passthrough: true }) res: CookieResponse): Promise<ConsoleSessionView> {
    if (!this.config.console.devSignIn) throw new ApiError(HttpStatus.NOT_FOUND, 'not_found');
    refuseCrossSite(req.headers);
    return this.started(await this.sessions.signIn(await mintDevApproverToken(this.config)), res);
  }

  @Get('session')
  @Header('Cache-Control', 'no-store')
  @UseGuards(ConsoleSessionGuard)
  session(@Req() req: ConsoleRequest): ConsoleSessionView {
    const { approver, expiresAt, csrfToken } = req.session!;
    return { principal: approver.principal, tenant: approver.tenant, issuer: approver.issuer, expiresAt: expiresAt.toISOString(), csrfToken };
  }

  @Delete('session')
  @HttpCode(204)
  @UseGuards(ConsoleSessionGuard)
  async signOut(@Req() req: ConsoleRequest, @Res({ passthrough: true }) res: CookieResponse): Promise<void> {
    await this.sessions.signOut(req.session!);
    res.setHeader('Set-Cookie', sessionCookie(null, { secure: this.config.console.secureCookie }));
  }

  @Post('confirmations/:id/approve')
  @HttpCode(200)
  @UseGuards(ConsoleSessionGuard)
  approve(@Param('id') id: string, @Req() req: ConsoleRequest, @Body() body: unknown) {
    const { comment, typed } = verdictBodyOf(body);
    return decideOrThrow(this.confirmations, id, req.session!.approver, 'approved', { comment, typedConfirmation: { required: true, typed } });
  }

  @Post('confirmations/:id/deny')
  @HttpCode(200)
  @UseGuards(ConsoleSessionGuard)
  deny(@Param('id') id: string, @Req() req: ConsoleRequest, @Body() body: unknown) {
    return decideOrThrow(this.confirmations, id, req.session!.approver, 'denied', { comment: verdictBodyOf(body).comment });
  }

  /** Confirmations no longer waiting, newest first, filtered and paged (ADR 0069). */
  @Get('history')
  @Header('Cache-Control', 'no-store')
  @UseGuards(ConsoleSessionGuard)
  history(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const parsed = parseHistoryQuery(query);
    if (!parsed.ok) throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message: parsed.message });
    return this.verdicts.page(req.session!.approver.tenant, parsed.query);
  }

  @Sse('events')
  @UseGuards(ConsoleSessionGuard)
  stream(@Req() req: ConsoleRequest): Observable<ConsoleEvent> {
    return this.events.stream(req.session!, this.guard.sessionIdOf(req)!);
  }

  private started(s: SignedIn, res: CookieResponse): ConsoleSessionView {
    res.setHeader('Set-Cookie', sessionCookie(s.sessionId, { secure: this.config.console.secureCookie, expiresAt: s.expires }));
    return viewOf(s);
  }
}

/** Sign-ins are JSON from the console's own origin (login CSRF; sign-in-origin.ts). */
function refuseCrossSite(headers: SignInRequestHeaders): void {
  const refusal = signInRefusal(headers);
  if (refusal) throw new ApiError(refusal.status, refusal.error, { message: refusal.message });
}
