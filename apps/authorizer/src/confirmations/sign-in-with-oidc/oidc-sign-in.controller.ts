import { Controller, Get, Header, Inject, Query, Req, Res, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { RateLimitGuard } from '@arvis/runtime';
import { ConsoleSessionsService } from '../approver-console/console-sessions.service';
import { escapeHtml } from '../approver-console/console-page';
import { sessionCookie } from '../approver-console/cookies';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import type { OidcRefusal } from './oidc-refusal';
import { OidcSignInService } from './oidc-sign-in.service';
import { preLoginCookie, preLoginOf } from './pre-login-cookie';

interface PlainResponse {
  status(code: number): PlainResponse;
  setHeader(name: string, value: string | string[]): void;
  send(body: string): void;
}

/** A refusal as a page (the browser navigated here): its code and words, and the way back. */
const refusalPage = (r: OidcRefusal) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title></head>
<body><h1>Sign-in refused</h1><p id="error">${escapeHtml(r.error)}</p><p id="message">${escapeHtml(r.message)}</p>
<p><a href="../../console">Back to the console</a></p></body></html>`;

/**
 * OIDC sign-in to the approver console (ADR 0071). `start` sends the browser to the provider
 * with a fresh state, nonce and PKCE challenge, kept in the pre-login cookie; `callback` is the
 * console's one entry a cross-site page may send a browser to: it starts a session only for the
 * code that answers this browser's own pre-login, and the pre-login is spent whatever happens.
 * Links are relative, so the console's path prefix is kept (ADR 0069).
 */
@Controller('console/oidc')
@UseGuards(RateLimitGuard)
@SkipThrottle({ signIn: true })
export class OidcSignInController {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly oidc: OidcSignInService,
    private readonly sessions: ConsoleSessionsService,
  ) {}

  @Get('start')
  @Header('Cache-Control', 'no-store')
  async start(@Query('issuer') issuer: unknown, @Res() res: PlainResponse): Promise<void> {
    const started = await this.oidc.start(typeof issuer === 'string' ? issuer : '');
    if (!started.ok) return refuse(res, started.refusal);
    res.setHeader('Set-Cookie', preLoginCookie(started.preLogin, this.config.console.secureCookie));
    res.setHeader('Location', started.authorizationUrl);
    res.status(303).send('');
  }

  @Get('callback')
  @Header('Cache-Control', 'no-store')
  @SkipThrottle({ signIn: false })
  async callback(@Req() req: { originalUrl: string; headers: Record<string, string | undefined> }, @Res() res: PlainResponse): Promise<void> {
    const secure = this.config.console.secureCookie;
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const done = await this.oidc.callback(preLoginOf(req.headers['cookie'], secure), query);
    // Spent whatever the outcome: a replayed callback finds no pre-login.
    const spent = preLoginCookie(null, secure);
    if (!done.ok) {
      res.setHeader('Set-Cookie', spent);
      return refuse(res, done.refusal);
    }
    const s = await this.sessions.start(done.approver);
    res.setHeader('Set-Cookie', [spent, sessionCookie(s.sessionId, { secure, expiresAt: s.expires })]);
    res.setHeader('Location', '../../console');
    res.status(303).send('');
  }
}

function refuse(res: PlainResponse, r: OidcRefusal): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.status(r.status).send(refusalPage(r));
}
