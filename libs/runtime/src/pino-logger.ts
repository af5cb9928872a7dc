import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** Nest's logger interface over pino: one JSON line per event, with service and context fields. */
export class PinoLogger implements LoggerService {
  readonly pino: Logger;

  constructor(service: string, level: string) {
    // Synchronous writes: Nest ends a graceful stop by re-raising the signal, which would drop
    // lines still buffered (the last ones, saying how the service stopped). Logs are low-volume:
    // nothing is logged per message.
    this.pino = pino(
      { level, base: { service, pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
      pino.destination({ dest: 1, sync: true }),
    );
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ context, ...message });
    else this.pino[level]({ context }, String(message));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context) for errors.
    const stack = typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
    this.write('error', stack ? `${String(message)}\n${stack}` : message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
}
