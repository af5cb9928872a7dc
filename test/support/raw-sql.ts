import type { Client, Pool, PoolClient } from 'pg';
import type { Tx } from '@arvis/persistence';

/**
 * The stores speak Prisma's tagged-template calling convention; Prisma's query compiler cannot
 * load inside jest's VM, so specs run the same statements over node-postgres through this.
 */
export function rawSql(run: (text: string, values: unknown[]) => Promise<{ rowCount: number | null; rows: unknown[] }>) {
  const text = (strings: TemplateStringsArray) => strings.reduce((acc, part, i) => `${acc}$${i}${part}`);
  return {
    $executeRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => (await run(text(strings), values)).rowCount ?? 0,
    $queryRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => (await run(text(strings), values)).rows,
    $queryRawUnsafe: async (sql: string, ...values: unknown[]) => (await run(sql, values)).rows,
  };
}

/** Runs `fn` in a transaction on `c`, counting the statements it sends; rolls back on a throw. */
export async function countedTx<T>(c: Client, fn: (tx: Tx) => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const tx = rawSql((t, v) => {
    statements++;
    return c.query(t, v);
  }) as unknown as Tx;
  await c.query('BEGIN');
  try {
    const result = await fn(tx);
    await c.query('COMMIT');
    return { result, statements };
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  }
}

/** One client or pool as a store's `tx`. */
export const sqlOn = (c: Client | Pool | PoolClient) => rawSql((t, v) => c.query(t, v)) as unknown as Tx;
