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

/**
 * What kind of database fault an error is, judged by the codes node-postgres, Prisma and its
 * driver adapter attach to the one error given (not its causes; callers walk the chain):
 * - unavailable: the database is not there right now (restart, failover, shutting down, missing,
 *   no connection slot, a transaction it was too slow to start);
 * - contention: the statement lost to another (serialization failure, deadlock, lock timeout);
 * - environment: the deployment is wrong (authentication, access, tables not migrated).
 * Null: the statement itself failed, and will every time. The one classifier of database faults:
 * the transport's transient-fault check and the start-up wait both use it.
 */
export type DatabaseFault = 'unavailable' | 'contention' | 'environment';

// SQLSTATE classes: connection exception, insufficient resources, operator intervention.
const UNAVAILABLE_CLASSES = ['08', '53', '57P'];
const SQLSTATES: ReadonlyMap<string, DatabaseFault> = new Map([
  ['3D000', 'unavailable'], // database does not exist (yet: created by the migrations)
  ['40001', 'contention'],
  ['40P01', 'contention'],
  ['55P03', 'contention'],
  ['28000', 'environment'],
  ['28P01', 'environment'],
  ['42P01', 'environment'],
]);
const ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
// Prisma: cannot reach / timed out / database missing / timeout / closed / pool timeout /
// transaction API (could not start in time) / too many connections; write conflict or deadlock;
// authentication failed, access denied.
const PRISMA_CODES: ReadonlyMap<string, DatabaseFault> = new Map([
  ...['P1001', 'P1002', 'P1003', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037'].map((c) => [c, 'unavailable'] as const),
  ['P2034', 'contention'],
  ['P1000', 'environment'],
  ['P1010', 'environment'],
]);
// Prisma driver-adapter error kinds (@prisma/adapter-pg).
const ADAPTER_KINDS: ReadonlyMap<string, DatabaseFault> = new Map([
  ...['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseDoesNotExist', 'TlsConnectionError'].map((k) => [k, 'unavailable'] as const),
  ['TransactionWriteConflict', 'contention'],
  ...['DatabaseAccessDenied', 'AuthenticationFailed', 'TableDoesNotExist'].map((k) => [k, 'environment'] as const),
]);
// node-postgres raises these as plain Errors without a code.
const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /Client has encountered a connection error/, /Can't reach database server/, /is not currently accepting connections/];

export function databaseFaultOf(e: unknown): DatabaseFault | null {
  if (e === null || typeof e !== 'object') return null;
  const { code, kind, name, message } = e as { code?: unknown; kind?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code)) {
      const known = SQLSTATES.get(code);
      if (known) return known;
      if (UNAVAILABLE_CLASSES.some((c) => code.startsWith(c))) return 'unavailable';
    }
    if (ERRNOS.has(code)) return 'unavailable';
    const prisma = PRISMA_CODES.get(code);
    if (prisma) return prisma;
  }
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return ADAPTER_KINDS.get(kind)!;
  // Prisma could not start; a transaction past DATABASE_TX_TIMEOUT_MS (a database too slow to answer).
  if (name === 'PrismaClientInitializationError' || name === 'TransactionTimeoutError') return 'unavailable';
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) return 'unavailable';
  return null;
}

/** Whether a statement failed because the database is not there right now (restart, failover), not because of the statement. */
export function isDatabaseUnavailable(e: unknown): boolean {
  return databaseFaultOf(e) === 'unavailable';
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
