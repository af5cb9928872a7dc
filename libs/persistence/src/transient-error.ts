// SQLSTATE classes and codes after which the same statement may well succeed once the database
// is back: connection exceptions (08), operator intervention (57P01-57P03), insufficient
// resources (53), serialization failures and deadlocks (40001, 40P01).
const TRANSIENT_SQLSTATE = /^(08...|57P0[123]|53...|40001|40P01)$/;
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
// Prisma's own codes: cannot reach (P1001), timed out (P1002, P1008), closed (P1017), and a
// transaction that expired or could not start (P2028).
const TRANSIENT_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2028']);
const TRANSIENT_MESSAGES = /connection terminated|connection refused|terminating connection|server closed the connection|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery)|Transaction already closed|Unable to start a transaction|timeout exceeded when trying to connect|Can't reach database server|is not currently accepting connections|Client has encountered a connection error/i;

function codesOf(e: unknown): string[] {
  if (typeof e !== 'object' || e === null) return [];
  const o = e as { code?: unknown; cause?: { code?: unknown; originalCode?: unknown } };
  return [o.code, o.cause?.code, o.cause?.originalCode].filter((c): c is string => typeof c === 'string');
}

/**
 * True when an error says the database is unreachable or restarting rather than that the work is
 * wrong: the caller waits and tries again instead of giving up on the work. Follows `cause`.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (codesOf(e).some((c) => TRANSIENT_SQLSTATE.test(c) || TRANSIENT_NODE_CODES.has(c) || TRANSIENT_PRISMA_CODES.has(c))) return true;
    if (e instanceof Error && TRANSIENT_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/**
 * Runs `fn`, and again with backoff for as long as it fails because the database is unavailable,
 * until `until` (epoch ms); any other failure, or one past the bound, is thrown.
 */
export async function retryWhileTransient<T>(fn: () => Promise<T>, until: number, onRetry: (attempt: number, e: Error) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isTransientDatabaseError(e) || Date.now() >= until) throw e;
      onRetry(attempt, e as Error);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5000)));
    }
  }
}
