import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';

/** What every HTTP error answers: the status, a short code, and our own words only. */
export interface PublicErrorBody {
  statusCode: number;
  error: string;
  reasonCode?: string;
  message?: string;
}

/**
 * An error whose code and message are ours to show (written in this code base, never a library's
 * text). Anything else thrown becomes a bare status code (ADR 0038).
 */
export class ApiError extends HttpException {
  constructor(status: HttpStatus, readonly error: string, readonly detail: { message?: string; reasonCode?: string } = {}) {
    super({ error, ...detail }, status);
  }
}

/** `Not Found` → `not_found`; the code for errors that are not ours (Nest's router, body parser, throttler). */
export function errorCodeOf(status: number): string {
  const name = HttpStatus[status] as string | undefined;
  return name ? name.toLowerCase() : status >= 500 ? 'internal_error' : 'error';
}

/** The body shown for anything thrown: an ApiError as it says, anything else by its status alone. */
export function publicErrorBody(exception: unknown): PublicErrorBody {
  if (exception instanceof ApiError) {
    return { statusCode: exception.getStatus(), error: exception.error, ...exception.detail };
  }
  if (exception instanceof HttpException) return { statusCode: exception.getStatus(), error: errorCodeOf(exception.getStatus()) };
  return { statusCode: 500, error: 'internal_error' };
}

interface HttpResponseLike {
  headersSent: boolean;
  status(code: number): { json(body: unknown): void };
  end(): void;
}

/**
 * Every HTTP error body is `{statusCode, error, reasonCode?, message?}`: no stack, no library
 * message (a JSON parser's, a JWT library's, a database driver's). Unexpected errors are logged
 * here, with their stack, and answered 500. Kafka handlers (hybrid app) keep Nest's own handling.
 */
@Catch()
export class PublicErrorFilter implements ExceptionFilter {
  private readonly log = new Logger('HTTP');
  private readonly rpc = new BaseRpcExceptionFilter();

  catch(exception: unknown, host: ArgumentsHost) {
    if (host.getType() !== 'http') return this.rpc.catch(exception, host);
    const body = publicErrorBody(exception);
    if (body.statusCode >= 500 && !(exception instanceof ApiError)) this.log.error({ msg: 'unhandled error answered 500', error: exception instanceof Error ? exception.message : String(exception) });
    const res = host.switchToHttp().getResponse<HttpResponseLike>();
    // A stream (server-sent events) that fails after its headers went out can only be ended.
    if (res.headersSent) return res.end();
    res.status(body.statusCode).json(body);
  }
}
