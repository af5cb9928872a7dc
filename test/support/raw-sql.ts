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

/** One client or pool as a store's `tx`. */
export const sqlOn = (c: Client | Pool | PoolClient) => rawSql((t, v) => c.query(t, v)) as unknown as Tx;
