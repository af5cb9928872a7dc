import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';

export type LogFormat = 'json' | 'pretty';

/**
 * Field names that never reach a line, wherever they sit (ADR 0064): a call site that passes a
 * whole settings object or request still writes no secret. Ids and counts go as fields; payloads,
 * tokens, keys and URLs with credentials never do.
 */
export const REDACTED_FIELDS: readonly string[] = [
  'password',
  'token',
  'authorization',
  'cookie',
  'privateKey',
  'secret',
  'payload',
  'headers',
  'databaseUrl',
  'url',
];

const redactPaths = REDACTED_FIELDS.flatMap((f) => [f, `*.${f}`]);

/** `postgresql://user:secret@host` in an error's text keeps the user and loses the password. */
const CREDENTIALS_IN_URL = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi;
export const scrubCredentials = (text: string): string => text.replace(CREDENTIALS_IN_URL, '$1[redacted]@');

/**
 * The fields of a line about an error: its message (credentials in URLs scrubbed) and, at debug,
 * its stack. Never the error object itself: a driver's error may carry the query's parameters.
 */
export function errorFields(e: unknown): { error: string } {
  return { error: scrubCredentials(e instanceof Error ? e.message : String(e)) };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const PRETTY_SKIP = new Set(['level', 'severity', 'time', 'msg', 'service', 'version', 'pid', 'context']);

/** A human line per JSON line for local use (LOG_FORMAT=pretty): `time LEVEL [context] msg k=v`. */
export function prettyLine(json: string): string {
  const o = JSON.parse(json) as Record<string, unknown>;
  const fields = Object.entries(o)
    .filter(([k]) => !PRETTY_SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const level = (LEVEL_NAMES[o.level as number] ?? String(o.level)).toUpperCase().padEnd(5);
  const context = o.context ? `[${String(o.context)}] ` : '';
  return `${String(o.time)} ${level} ${o.service as string} ${context}${String(o.msg ?? '')}${fields.length ? ' ' + fields.join(' ') : ''}\n`;
}

function prettyDestination(out: DestinationStream): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line)) };
}

export interface PinoLoggerOptions {
  format?: LogFormat;
  version?: string;
  /** Where lines go (specs); stdout, synchronously, by default. */
  destination?: DestinationStream;
}

/**
 * Nest's logger interface over pino: one JSON object per line with a stable `msg` and the event's
 * ids as fields (ADR 0064). Call sites pass `{ msg, ...fields }`; a plain string is its `msg`.
 * No context manager is registered (libs/tracing keeps its tracer to itself), so a line carries
 * `traceId` only where its call site knows it.
 */
export class PinoLogger implements LoggerService {
  readonly pino: Logger;

  constructor(service: string, level: string, options: PinoLoggerOptions = {}) {
    // Synchronous writes: Nest ends a graceful stop by re-raising the signal, which would drop
    // lines still buffered (the last ones, saying how the service stopped). Logs are low-volume:
    // nothing is logged per message at info.
    const out = options.destination ?? pino.destination({ dest: 1, sync: true });
    this.pino = pino(
      {
        level,
        base: { service, ...(options.version ? { version: options.version } : {}), pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (_label, number) => ({ level: number, severity: LEVEL_NAMES[number] ?? String(number) }) },
        redact: { paths: redactPaths, censor: '[redacted]' },
      },
      options.format === 'pretty' ? prettyDestination(out) : out,
    );
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    if (message instanceof Error) this.pino[level]({ context, ...errorFields(message), ...(this.pino.isLevelEnabled('debug') ? { stack: message.stack } : {}) }, scrubCredentials(message.message));
    else if (typeof message === 'object' && message !== null) {
      const { msg, ...fields } = message as Record<string, unknown>;
      // A driver's message may quote a connection URL: its password goes, whoever wrote the line.
      if (typeof fields.error === 'string') fields.error = scrubCredentials(fields.error);
      this.pino[level]({ context, ...fields }, typeof msg === 'string' ? msg : '');
    } else this.pino[level]({ context }, scrubCredentials(String(message)));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context) for errors: the stack is a field, never part of msg.
    const stack = typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
    if (stack && typeof message === 'string') this.write('error', { msg: scrubCredentials(message), stack }, rest);
    else this.write('error', message, rest);
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

/** The ids a line about one decision carries, picked from whatever facts the call site holds (never its payload). */
export function decisionFields(f: { decisionId?: string; runId?: string; tenant?: string; tool?: string; traceId?: string; capabilityId?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['decisionId', 'runId', 'tenant', 'tool', 'capabilityId', 'traceId'] as const) if (f[k] !== undefined) out[k] = f[k];
  return out;
}

/** At most this many ids in one line about many decisions: the line stays bounded, the count says the rest. */
export const MAX_IDS_PER_LINE = 20;
export const someIds = (ids: readonly string[]): string[] => ids.slice(0, MAX_IDS_PER_LINE);
