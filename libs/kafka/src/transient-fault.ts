/**
 * Whether a handler's failure is a transient fault (the database or the broker is down or busy,
 * or the environment is wrong: database missing, access refused, tables not migrated) that must
 * be waited out, as opposed to a failure that the same message will cause every time. Waiting on
 * an environment fault keeps a misconfigured service from dead-lettering a whole topic.
 * Judged by the codes the drivers attach, found anywhere in the error's cause chain, so a pg
 * error wrapped by Prisma's driver adapter or a kafkajs error wrapped by a retrier both count.
 */
export function isTransientFault(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (isTransientShape(e as ErrorShape)) return true;
    const shape = e as ErrorShape;
    queue.push(shape.cause, shape.originalError, shape.meta, shape.meta?.driverAdapterError);
  }
  return false;
}

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  retriable?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { code?: unknown; driverAdapterError?: unknown } & Record<string, unknown>;
}

// SQLSTATE classes and codes: connection exception, insufficient resources, operator
// intervention (shutdown, cannot connect now), serialization failure, deadlock, lock timeout.
const SQLSTATE_CLASSES = ['08', '53', '57P'];
const SQLSTATES = new Set(['40001', '40P01', '55P03', '3D000', '28000', '28P01', '42P01']);
const ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
// Prisma: cannot reach / timed out / connection closed / pool timeout / transaction API
// (could not start in time) / write conflict or deadlock / too many connections.
// Also: authentication failed, database missing, access denied.
const PRISMA_CODES = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1008', 'P1010', 'P1017', 'P2024', 'P2028', 'P2034', 'P2037']);
// Prisma driver-adapter error kinds (@prisma/adapter-pg).
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionWriteConflict',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TableDoesNotExist',
  'TlsConnectionError',
]);
const KAFKAJS_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
]);
// node-postgres raises these as plain Errors without a code.
const PG_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /Client has encountered a connection error/, /Can't reach database server/, /is not currently accepting connections/];

function isTransientShape(e: ErrorShape): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined) {
    if (/^[0-9A-Z]{5}$/.test(code) && (SQLSTATES.has(code) || SQLSTATE_CLASSES.some((c) => code.startsWith(c)))) return true;
    if (ERRNOS.has(code) || PRISMA_CODES.has(code)) return true;
  }
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.name === 'string' && e.name.startsWith('KafkaJS')) {
    return KAFKAJS_NAMES.has(e.name) || e.retriable === true;
  }
  if (typeof e.name === 'string' && e.name === 'PrismaClientInitializationError') return true;
  // A transaction past DATABASE_TX_TIMEOUT_MS (a database too slow to answer), as Prisma's P2028 was.
  if (typeof e.name === 'string' && e.name === 'TransactionTimeoutError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return PG_MESSAGES.some((re) => re.test(message));
}

/**
 * Runs `fn`, and again with backoff for as long as it fails with a transient fault, until `until`
 * (epoch ms); any other failure, or one past the bound, is thrown. For work that must not be
 * handed back to the transport (effects that already happened).
 */
export async function retryWhileTransient<T>(fn: () => Promise<T>, until: number, onRetry: (attempt: number, e: Error) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isTransientFault(e) || Date.now() >= until) throw e;
      onRetry(attempt, e as Error);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5000)));
    }
  }
}
