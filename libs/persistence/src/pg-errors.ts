import type { Client, Pool } from 'pg';

/** One structured line (ADR 0064): which pool, and the driver's message. */
export interface ConnectionLost {
  msg: 'database connection lost';
  pool: string;
  error: string;
}
type Warn = (line: ConnectionLost) => void;

/**
 * node-postgres emits 'error' when the server drops a connection (restart, failover,
 * pg_terminate_backend). An EventEmitter 'error' without a listener kills the process, so every
 * pool and client gets one: a pool then discards the dead connection and opens a new one on the
 * next checkout, and the work that needed it fails as an ordinary, retried fault.
 */
export function handlePoolErrors<P extends Pool>(pool: P, what: string, warn: Warn): P {
  // Every client gets its own listener for its whole life, not only while idle: pg-pool drops its
  // idle listener the moment it hands a client to a caller waiting in `await pool.connect()`, and
  // that caller (Prisma's transactions among them) attaches its own only a microtask later. A
  // server message ending the connection in that gap was an unhandled 'error' (ADR 0019).
  pool.on('connect', (client) => {
    client.on('error', (e: Error) => warn({ msg: 'database connection lost', pool: what, error: e.message }));
  });
  // Idle losses reach the pool too; the client's own listener has already logged them.
  pool.on('error', () => undefined);
  return pool;
}

/** For a standalone client: the caller learns of the loss through its next query or `ended`. */
export function handleClientErrors<C extends Client>(client: C, what: string, warn: Warn): C {
  client.on('error', (e: Error) => warn({ msg: 'database connection lost', pool: what, error: e.message }));
  return client;
}

// SQLSTATE classes: connection exception, insufficient resources, operator intervention (the
// server shutting down, starting up, or not accepting connections now); and the database missing.
const UNAVAILABLE_CLASSES = ['08', '53', '57P'];
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /is not currently accepting connections/];

/** Whether a statement failed because the database is not there right now (restart, failover), not because of the statement. */
export function isDatabaseUnavailable(e: unknown): boolean {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_ERRNOS.has(code) || code === '3D000' || UNAVAILABLE_CLASSES.some((c) => code.startsWith(c)))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message));
}

/**
 * Runs a start-up read again, with backoff, for as long as the database is unavailable: an app
 * started while PostgreSQL restarts waits for it (not ready meanwhile) instead of exiting. Seen:
 * a dispatcher restarted during the chaos suite's PostgreSQL restart exited 1 on "the database
 * system is shutting down" in its first read. Any other failure is thrown.
 */
export async function untilDatabaseAnswers<T>(read: () => Promise<T>, onWait: (attempt: number, e: Error) => void, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if (!isDatabaseUnavailable(e)) throw e;
      onWait(attempt, e as Error);
      await sleep(Math.min(5000, 250 * attempt));
    }
  }
}
