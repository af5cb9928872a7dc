import { types, type Pool, type QueryResult } from 'pg';
import { pipelined } from './pipelined-statements';

/**
 * The statements a store runs: raw SQL only, as tagged templates or text with parameters. Both a
 * transaction (`Database.tx`) and `Database` itself (one autocommitted statement) are
 * one, so a store's method takes either.
 */
export interface SqlClient {
  $queryRaw<T = unknown>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  $executeRaw(strings: TemplateStringsArray, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(sql: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
}

/** The transaction outlived DATABASE_TX_TIMEOUT_MS: rolled back, and waited out like an outage. */
export class TransactionTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`transaction exceeded ${timeoutMs} ms and was rolled back`);
    this.name = 'TransactionTimeoutError';
  }
}

const INT8 = 20;
const INT8_ARRAY = 1016;
const textArray = types.getTypeParser(INT8_ARRAY as Parameters<typeof types.getTypeParser>[0], 'text') as (v: string) => (string | null)[];
// Rows read as the Prisma client's raw queries read them: bigint columns as BigInt (pg gives strings).
const parsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (v: string) => BigInt(v);
    if (oid === INT8_ARRAY) return (v: string) => textArray(v).map((x) => (x === null ? null : BigInt(x)));
    return types.getTypeParser(oid, format ?? 'text');
  }) as typeof types.getTypeParser,
};

const textOf = (strings: TemplateStringsArray) => strings.reduce((sql, part, i) => `${sql}$${i}${part}`);

// Named statements: PostgreSQL parses and plans a named statement once per connection and
// reuses the plan, where an unnamed one is parsed and planned at every execution (the hot path
// runs the same few dozen texts over and over). The name is fixed per text for the life of the
// process; past MAX_NAMED distinct texts (SQL built from input would be a bug, but must not grow
// every connection's memory without end) statements go unnamed.
const MAX_NAMED = 500;
const names = new Map<string, string>();
function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `arvis_${names.size + 1}`));
  return name;
}

/** A query config for `text`, named (so prepared once per connection) and reading rows as Prisma's raw queries did. */
export function preparedQuery(text: string, values: unknown[]): { name?: string; text: string; values: unknown[]; types: typeof parsers } {
  return { name: nameOf(text), text, values, types: parsers };
}

/** The four raw-statement methods over one way of running a named statement. */
function sqlClient(run: (text: string, values: unknown[]) => Promise<QueryResult>): SqlClient {
  return {
    $queryRaw: async <T>(strings: TemplateStringsArray, ...values: unknown[]) => (await run(textOf(strings), values)).rows as T,
    $executeRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => (await run(textOf(strings), values)).rowCount ?? 0,
    $queryRawUnsafe: async <T>(sql: string, ...values: unknown[]) => (await run(sql, values)).rows as T,
    $executeRawUnsafe: async (sql: string, ...values: unknown[]) => (await run(sql, values)).rowCount ?? 0,
  };
}

/** Each statement on its own pooled connection, autocommitted: the hot path's statements outside a transaction. */
export function pgStatements(pool: Pool): SqlClient {
  return sqlClient((text, values) => pool.query(preparedQuery(text, values)));
}

/**
 * BEGIN, `fn`, COMMIT; ROLLBACK if anything failed or the time ran out. Prisma's interactive
 * transaction cost about four times the CPU per statement of pg's own (ADR 0044), and every step
 * of the hot path is a raw statement, so the path's transactions run here. BEGIN goes with the
 * first statement, in its round trip where that statement is prepared on the connection already
 * (pipelined-statements.ts); a callback that runs no statement opens no transaction.
 */
export async function inPgTransaction<T>(pool: Pool, timeoutMs: number, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // The connection can be cut while we hold it: note it, and have the pool discard it on release.
  let lost: Error | undefined;
  const onLost = (e: Error) => (lost ??= e);
  client.on('error', onLost);
  let begun = false;
  try {
    let expired = false;
    const checkOpen = () => {
      if (expired) throw new TransactionTimeoutError(timeoutMs);
    };
    const timer = setTimeout(() => (expired = true), timeoutMs);
    try {
      const result = await fn(
        sqlClient(async (text, values) => {
          checkOpen();
          const config = preparedQuery(text, values);
          if (begun) return client.query(config);
          begun = true;
          return (await pipelined(client, ['BEGIN'], config))[1];
        }),
      );
      checkOpen();
      if (begun) await client.query('COMMIT');
      return result;
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    if (begun) await client.query('ROLLBACK').catch((r: Error) => (lost ??= r));
    throw e;
  } finally {
    client.off('error', onLost);
    client.release(lost);
  }
}
