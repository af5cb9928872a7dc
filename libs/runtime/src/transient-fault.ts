import { isBrokerFaultShape } from '@arvis/kafka';
import { databaseFaultOf } from '@arvis/persistence';

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

function isTransientShape(e: ErrorShape): boolean {
  // Every database fault is waited out here, the environment's too (ADR 0019).
  return databaseFaultOf(e) !== null || isBrokerFaultShape(e);
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
