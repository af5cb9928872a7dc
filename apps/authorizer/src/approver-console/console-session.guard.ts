import { type CanActivate, type ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import { ApiError } from '@arvis/runtime';
import { cookieValue, SESSION_COOKIE } from './cookies';
import { ConsoleSessionsService, type ActiveSession } from './console-sessions.service';

export interface ConsoleRequest {
  method: string;
  headers: Record<string, string | undefined>;
  session?: ActiveSession;
}

const SAFE = new Set(['GET', 'HEAD']);

/**
 * The console's own routes: a live session cookie (401 otherwise), and for anything that changes
 * state the session's CSRF token in X-CSRF-Token (403 otherwise). SameSite=Strict already keeps
 * the cookie off cross-site requests; the header is the second, independent check.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ConsoleRequest>();
    const id = cookieValue(req.headers['cookie'], SESSION_COOKIE);
    const session = id === null ? null : await this.sessions.find(id);
    if (!session) throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthenticated', { message: 'sign in to the console' });
    if (!SAFE.has(req.method) && !this.sessions.csrfMatches(session, req.headers['x-csrf-token'])) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'csrf_token_invalid', { message: 'the X-CSRF-Token header is missing or wrong' });
    }
    req.session = session;
    return true;
  }
}
