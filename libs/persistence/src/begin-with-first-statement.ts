import { Query, type PoolClient, type QueryResult } from 'pg';

/** What the query config of `preparedQuery` carries; the parts pg's Query reads. */
interface PreparedConfig {
  name?: string;
  text: string;
  values: unknown[];
  types: unknown;
}

/** pg's wire connection as its Query sees it (pg 8.23, lib/connection.js); not in @types/pg. */
interface WireConnection {
  parse(msg: { text: string; name?: string; types?: unknown[] }): void;
  bind(msg: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(msg: { portal?: string; rows?: number }): void;
  parsedStatements: Record<string, string | undefined>;
}

/**
 * A transaction's first statement with its BEGIN in front, in one round trip: BEGIN goes through
 * the extended protocol as an unnamed Parse, Bind and Execute with no Sync of its own, so the
 * server runs it and then the statement before it answers (one ReadyForQuery for both). Its
 * CommandComplete is dropped, so the result is the statement's alone. If the statement fails, the
 * server has begun the transaction and marks it failed: the caller's ROLLBACK ends it as before.
 *
 * Only for a named statement this connection has already parsed: then BEGIN's ParseComplete,
 * which pg's client books against the active query's name, books what is already true. For one
 * not parsed yet, a failed Parse would leave pg believing it parsed, and every later use of that
 * name on the connection would fail; those (once per text per connection) take BEGIN apart.
 */
class BeginThenQuery extends (Query as unknown as new (config: PreparedConfig & { callback: (e: Error | null, r: QueryResult) => void }) => object) {
  private beginCompleted = false;

  prepare(connection: WireConnection): void {
    connection.parse({ text: 'BEGIN' });
    connection.bind({});
    connection.execute({});
    (Query.prototype as unknown as { prepare(c: WireConnection): void }).prepare.call(this, connection);
  }

  handleCommandComplete(msg: unknown, connection: WireConnection): void {
    if (!this.beginCompleted) {
      this.beginCompleted = true;
      return;
    }
    (Query.prototype as unknown as { handleCommandComplete(m: unknown, c: WireConnection): void }).handleCommandComplete.call(this, msg, connection);
  }
}

/** Whether `config` can go with its BEGIN on `client` (see BeginThenQuery). */
export function canBeginWith(client: PoolClient, config: PreparedConfig): boolean {
  const connection = (client as unknown as { connection: WireConnection }).connection;
  return config.name !== undefined && connection.parsedStatements[config.name] === config.text;
}

/** BEGIN and `config` in one round trip; only where `canBeginWith` said so. */
export function beginWith(client: PoolClient, config: PreparedConfig): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    // pg calls back once more at ReadyForQuery after a Bind that threw; a settled promise ignores it.
    const query = new BeginThenQuery({ ...config, callback: (e, r) => (e ? reject(e) : resolve(r)) });
    (client as unknown as { query(q: object): void }).query(query);
  });
}
