import { type CanActivate, type ExecutionContext, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { CONSOLE_PATH, cookieValue, sessionCookieName } from './cookies';
import { ConsoleSessionsService, type ActiveSession } from './console-sessions.service';

export interface ConsoleRequest {
  method: string;
  /** The path the router matched (Express's req.path). */
  path: string;
  headers: Record<string, string | undefined>;
  session?: ActiveSession;
}

const SAFE = new Set(['GET', 'HEAD']);

/**
 * The console's own routes: a live session cookie (401 otherwise), and for anything that changes
 * state the session's CSRF token in X-CSRF-Token (403 otherwise). SameSite=Strict already keeps
 * the cookie off cross-site requests; the header is the second, independent check. The cookie
 * reaches every path once it is `__Host-` prefixed (`Path=/`): it is honoured on the console's
 * own paths only.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  private readonly cookieName: string;

  constructor(
    private readonly sessions: ConsoleSessionsService,
    @Inject(AUTHORIZER_CONFIG) config: AuthorizerConfig,
  ) {
    this.cookieName = sessionCookieName(config.console.secureCookie);
  }

  /** The session id the request's cookie names, or null. */
  sessionIdOf(req: ConsoleRequest): string | null {
    return cookieValue(req.headers['cookie'], this.cookieName);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ConsoleRequest>();
    if (!req.path.startsWith(`${CONSOLE_PATH}/`)) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'a console session is for the console only' });
    const id = this.sessionIdOf(req);
    const session = id === null ? null : await this.sessions.find(id);
    if (!session) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'sign in to the console' });
    if (!SAFE.has(req.method) && !this.sessions.csrfMatches(session, req.headers['x-csrf-token'])) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'csrf_token_invalid', { message: 'the X-CSRF-Token header is missing or wrong' });
    }
    req.session = session;
    return true;
  }
}
