import { types, type Pool, type QueryResult } from 'pg';
import { isPreparedOn, pipelined, pipelinedPrepared, type PreparedConfig } from './pipelined-statements';

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

/**
 * A statement's answer, marked handled: one issued and not awaited when its round trip fails
 * (a sibling failed, the transaction ends) must not be an unhandled rejection, which would end the
 * process; whoever awaits it still gets the error.
 */
function handled<T>(answer: Promise<T>): Promise<T> {
  answer.catch(() => undefined);
  return answer;
}

/** The four raw-statement methods over one way of running a named statement. */
function sqlClient(run: (text: string, values: unknown[]) => Promise<QueryResult>): SqlClient {
  const rows = <T>(r: QueryResult) => r.rows as T;
  const count = (r: QueryResult) => r.rowCount ?? 0;
  return {
    $queryRaw: <T>(strings: TemplateStringsArray, ...values: unknown[]) => handled(run(textOf(strings), values).then(rows<T>)),
    $executeRaw: (strings: TemplateStringsArray, ...values: unknown[]) => handled(run(textOf(strings), values).then(count)),
    $queryRawUnsafe: <T>(sql: string, ...values: unknown[]) => handled(run(sql, values).then(rows<T>)),
    $executeRawUnsafe: (sql: string, ...values: unknown[]) => handled(run(sql, values).then(count)),
  };
}

/** Each statement on its own pooled connection, autocommitted: the hot path's statements outside a transaction. */
export function pgStatements(pool: Pool): SqlClient {
  return sqlClient((text, values) => pool.query(preparedQuery(text, values)));
}

/** A statement a transaction's callback issued, not sent yet. */
interface Issued {
  config: PreparedConfig;
  resolve: (r: QueryResult) => void;
  reject: (e: unknown) => void;
}

/**
 * BEGIN, `fn`, COMMIT; ROLLBACK if anything failed or the time ran out. Prisma's interactive
 * transaction cost about four times the CPU per statement of pg's own (ADR 0044), and every step
 * of the hot path is a raw statement, so the path's transactions run here.
 *
 * Statements go in as few round trips as their order allows (ADR 0090): BEGIN goes with the
 * first statement, and statements the callback issues before awaiting any of them (in one turn
 * of the event loop, e.g. a write whose answer is needed only later, then the next statement) go
 * together, in the order issued, where each is prepared on the connection already
 * (pipelined-statements.ts); otherwise one after the other, as pg queues them. A failure fails
 * every statement of its round trip (the server skips the rest), and the transaction rolls back.
 * A callback that runs no statement opens no transaction.
 */
export async function inPgTransaction<T>(pool: Pool, timeoutMs: number, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // The connection can be cut while we hold it: note it, and have the pool discard it on release.
  let lost: Error | undefined;
  const onLost = (e: Error) => (lost ??= e);
  client.on('error', onLost);
  let begun = false;
  let issued: Issued[] = [];
  /** Sends what was issued: one round trip where every statement is prepared on the connection. */
  const send = (): void => {
    const batch = issued;
    issued = [];
    if (batch.length === 0) return;
    const prefix = begun ? [] : ['BEGIN'];
    begun = true;
    const settle = (all: Promise<QueryResult[]>, from: number) =>
      all.then(
        (results) => batch.forEach((s, i) => s.resolve(results[from + i])),
        (e: unknown) => batch.forEach((s) => s.reject(e)),
      );
    if (batch.every((s) => isPreparedOn(client, s.config))) {
      void settle(pipelinedPrepared(client, prefix, batch.map((s) => s.config)), prefix.length);
      return;
    }
    // A statement not parsed on this connection yet: each goes alone (BEGIN with the first where it can).
    const [first, ...rest] = batch;
    void (prefix.length > 0 ? pipelined(client, prefix, first.config).then((r) => r[1]) : client.query(first.config)).then(first.resolve, first.reject);
    for (const s of rest) void client.query(s.config).then(s.resolve, s.reject);
  };
  try {
    let expired = false;
    const checkOpen = () => {
      if (expired) throw new TransactionTimeoutError(timeoutMs);
    };
    const timer = setTimeout(() => (expired = true), timeoutMs);
    try {
      const result = await fn(
        sqlClient(
          (text, values) =>
            // A throw in the executor (the time ran out) rejects the statement's answer.
            new Promise<QueryResult>((resolve, reject) => {
              checkOpen();
              if (issued.length === 0) queueMicrotask(send);
              issued.push({ config: preparedQuery(text, values), resolve, reject });
            }),
        ),
      );
      checkOpen();
      // A statement issued and never awaited goes before the COMMIT (pg keeps their order).
      send();
      if (begun) await client.query('COMMIT');
      return result;
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    send();
    if (begun) await client.query('ROLLBACK').catch((r: Error) => (lost ??= r));
    throw e;
  } finally {
    client.off('error', onLost);
    client.release(lost);
  }
}
