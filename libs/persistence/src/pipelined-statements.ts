import { Query, type CustomTypesConfig, type PoolClient, type QueryResult } from 'pg';
// pg's own mapping of a parameter to its wire text (arrays, dates, buffers, nulls), as its Query binds.
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

/** What the query config of `preparedQuery` carries; the parts pg's Query reads. */
export interface PreparedConfig {
  name?: string;
  text: string;
  values: unknown[];
  types?: CustomTypesConfig;
}

/** pg's wire connection as its Query sees it (pg 8.23, lib/connection.js); not in @types/pg. */
interface WireConnection {
  parse(msg: { text: string; name?: string; types?: unknown[] }): void;
  bind(msg: { portal?: string; statement?: string; values?: unknown[]; valueMapper?: (value: unknown) => unknown }): void;
  describe(msg: { type: 'P' | 'S'; name?: string }): void;
  execute(msg: { portal?: string; rows?: number }): void;
  parsedStatements: Record<string, string | undefined>;
}

type Callback = (e: Error | null, r: QueryResult | QueryResult[]) => void;

/** A statement sent before the last one of a round trip: a text without parameters, or a named statement the connection has parsed. */
type PrefixStatement = string | PreparedConfig;

/**
 * Statements (`prefix`), then one prepared statement, in one round trip: a prefix text without
 * parameters (BEGIN, an advisory lock's try) goes through the extended protocol as an unnamed
 * Parse, Bind, Describe and Execute, a prefix statement already parsed on the connection as its
 * Bind, Describe and Execute; none has a Sync of its own, so the server runs them in order and
 * answers once (one ReadyForQuery for all). Each is its own statement: in READ COMMITTED each
 * takes its own snapshot, so the last sees what was committed before the prefix ran (a lock taken
 * by the prefix, say). pg's Query collects one result per statement, as for a simple query of
 * several statements. If one fails, the server skips the rest; a prefix that began a transaction
 * leaves it failed, for the caller's ROLLBACK.
 *
 * Only for named statements this connection has already parsed: pg's client books every
 * ParseComplete against the active query's name, which is then true already. For one not parsed
 * yet, a failed Parse would leave pg believing it parsed, and every later use of that name on the
 * connection would fail; callers then send them apart (once per text per connection).
 */
class PipelinedQuery extends (Query as unknown as new (config: PreparedConfig & { callback: Callback }) => object) {
  constructor(
    config: PreparedConfig & { callback: Callback },
    private readonly prefix: readonly PrefixStatement[],
  ) {
    super(config);
  }

  prepare(connection: WireConnection): void {
    for (const statement of this.prefix) {
      if (typeof statement === 'string') {
        connection.parse({ text: statement });
        connection.bind({});
      } else {
        connection.bind({ statement: statement.name, values: statement.values, valueMapper: prepareValue });
      }
      connection.describe({ type: 'P' });
      connection.execute({});
    }
    (Query.prototype as unknown as { prepare(c: WireConnection): void }).prepare.call(this, connection);
  }
}

/** Whether `config` is a named statement parsed on `client`'s connection: it may share a round trip (see PipelinedQuery). */
export function isPreparedOn(client: PoolClient, config: PreparedConfig): boolean {
  const connection = (client as unknown as { connection: WireConnection }).connection;
  return config.name !== undefined && connection.parsedStatements[config.name] === config.text;
}

/**
 * `prefix` (statements without parameters) and then `config`; the results in that order, one per
 * statement. One round trip where `config` is prepared on the connection already; otherwise two
 * (the prefix as one simple query, `config` queued right behind it, so a statement the caller
 * starts meanwhile still goes after both), and `config` is parsed for the next time.
 */
export async function pipelined(client: PoolClient, prefix: readonly string[], config: PreparedConfig): Promise<QueryResult[]> {
  if (prefix.length === 0) throw new Error('pipelined: no statement to send before the prepared one');
  if (!isPreparedOn(client, config)) {
    const [head, last] = await Promise.all([client.query(prefix.join('; ')) as Promise<QueryResult | QueryResult[]>, client.query(config)]);
    // pg gives a simple query of one statement one result, of several a list.
    return [...(Array.isArray(head) ? head : [head]), last];
  }
  return pipelinedPrepared(client, prefix, [config]);
}

/**
 * Named statements already parsed on `client`'s connection, after `prefix` texts without
 * parameters, in one round trip (see PipelinedQuery); one result per statement, the prefix's
 * first. The caller checks `isPreparedOn` for every statement.
 */
export function pipelinedPrepared(client: PoolClient, prefix: readonly string[], statements: readonly PreparedConfig[]): Promise<QueryResult[]> {
  const last = statements[statements.length - 1];
  return new Promise((resolve, reject) => {
    // pg gives one statement's result alone, several as a list. It calls back once more at
    // ReadyForQuery after a Bind that threw; a settled promise ignores it.
    const query = new PipelinedQuery({ ...last, callback: (e, r) => (e ? reject(e) : resolve(Array.isArray(r) ? r : [r])) }, [...prefix, ...statements.slice(0, -1)]);
    (client as unknown as { query(q: object): void }).query(query);
  });
}
