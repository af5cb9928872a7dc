import { unnestOf, type ColumnMap, type InsertPart, type Tx } from '@arvis/persistence';
import type { TraceCarrier } from '@arvis/tracing';

export interface OutboxRow {
  topic: string;
  key: string;
  payload: string;
  headers?: Record<string, string>;
  /** Set when the caller reserved the sequence (an intent's durable position is its outbox seq). */
  seq?: bigint;
  /** The writer's span: the relay publishes under it and sends it as traceparent/tracestate. */
  traceContext?: TraceCarrier;
  /** A final journal entry's copy: the relay also sends it to this tenant's result topic (ADR 0073). */
  resultTenant?: string;
}

const OUTBOX_COLUMNS: ColumnMap<OutboxRow> = {
  seq: ['bigint', (r) => r.seq ?? null],
  topic: ['text', (r) => r.topic],
  message_key: ['text', (r) => r.key],
  payload: ['text', (r) => r.payload],
  headers: ['jsonb', (r) => (r.headers ? JSON.stringify(r.headers) : null)],
  trace_context: ['jsonb', (r) => (r.traceContext ? JSON.stringify(r.traceContext) : null)],
  result_tenant: ['text', (r) => r.resultTenant ?? null],
};

const NEXT_SEQ = `nextval(pg_get_serial_sequence('outbox', 'seq'))`;

/**
 * The outbox INSERT for these rows, to run alone or as a part of a larger statement (a CTE):
 * its parameters are numbered after the first `after` of that statement. Rows without a reserved
 * position take the next ones, in the order given (unnest keeps it).
 */
export function outboxInsert(rows: readonly OutboxRow[], after = 0): { sql: string; params: (string | boolean | null)[][] } {
  const u = unnestOf(OUTBOX_COLUMNS, rows, after);
  return {
    sql: outboxInsertFrom({
      from: u.sql,
      seq: `coalesce(v.seq, ${NEXT_SEQ})`,
      topic: 'v.topic',
      key: 'v.message_key',
      payload: 'v.payload',
      headers: 'v.headers',
      traceContext: 'v.trace_context',
      resultTenant: 'v.result_tenant',
    }),
    params: u.params,
  };
}

/**
 * An outbox INSERT whose rows a statement computes from its own source (SQL expressions over
 * `from`), for copies of rows the same statement writes elsewhere: the copy is built by
 * PostgreSQL, so its payload does not travel to the database a second time. Rows without `seq`
 * take the next positions in the order `from` yields them.
 */
export function outboxInsertFrom(select: { from: string; topic: string; key: string; payload: string; seq?: string; headers?: string; traceContext?: string; resultTenant?: string }): string {
  return `INSERT INTO outbox (seq, topic, message_key, payload, headers, trace_context, result_tenant)
     SELECT ${select.seq ?? NEXT_SEQ}, ${select.topic}, ${select.key}, ${select.payload}, ${select.headers ?? 'NULL::jsonb'},
            ${select.traceContext ?? 'NULL::jsonb'}, ${select.resultTenant ?? 'NULL::text'}
     FROM ${select.from}`;
}

/** The outbox rows as a part of a statement that inserts other tables' rows too (insertParts). */
export function outboxPart(rows: readonly OutboxRow[]): InsertPart {
  return { label: 'outbox', rows: rows.length, build: (after) => outboxInsert(rows, after) };
}

/** Adds rows to the outbox inside the caller's transaction; they reach Kafka only if it commits. */
export async function enqueueOutbox(tx: Tx, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const insert = outboxInsert(rows);
  const inserted = await tx.$executeRawUnsafe(insert.sql, ...insert.params);
  if (inserted !== rows.length) throw new Error(`inserted ${inserted} of ${rows.length} outbox rows`);
}

/** Reserves outbox sequence numbers ahead of the insert, so a message can carry its own position. */
export async function reserveOutboxSeqs(tx: Tx, n: number): Promise<bigint[]> {
  if (n === 0) return [];
  // nextval over a series: one round trip for the whole batch (Prisma has no API for sequences).
  const rows = await tx.$queryRaw<{ seq: bigint }[]>`
    SELECT nextval(pg_get_serial_sequence('outbox', 'seq')) AS seq FROM generate_series(1, ${n}::int)`;
  // Row order is not guaranteed to follow nextval order: sort, so that messages of one run
  // written in one transaction get positions in the order they were decided.
  return rows.map((r) => BigInt(r.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
