import type { Tx } from './database';

export type PgArrayType = 'text' | 'bigint' | 'boolean' | 'timestamptz' | 'jsonb';
type Cell = string | number | bigint | boolean | Date | null | undefined;

/** Column name -> [PostgreSQL type, how to read it off a row]. */
export type ColumnMap<T> = Readonly<Record<string, readonly [PgArrayType, (row: T) => Cell]>>;

// One parameter per column, however many rows: Prisma's createMany sends one placeholder per
// value and compiles a plan per row count; on 500 outbox rows it cost about five times the CPU
// of this statement (ADR 0018). Values travel as text and are cast by PostgreSQL.
const asParam = (v: Cell): string | boolean | null =>
  v === null || v === undefined
    ? null
    : typeof v === 'bigint' || typeof v === 'number'
      ? v.toString()
      : v instanceof Date
        ? v.toISOString()
        : v;

/**
 * The unnest(...) source for these rows: its SQL (parameters from $1, or after the first `after`
 * parameters of a statement that holds others) and its parameters.
 */
export function unnestOf<T>(columns: ColumnMap<T>, rows: readonly T[], after = 0): { names: string[]; sql: string; params: (string | boolean | null)[][] } {
  const names = Object.keys(columns);
  return {
    names,
    sql: `unnest(${names.map((n, i) => `$${after + i + 1}::${columns[n][0]}[]`).join(', ')}) AS v(${names.join(', ')})`,
    params: names.map((n) => rows.map((r) => asParam(columns[n][1](r)))),
  };
}

/**
 * Inserts rows with one INSERT ... SELECT FROM unnest(...) and checks that every row went in.
 * `table` and the column names come from our code, never from input.
 */
export async function insertRows<T>(tx: Tx, table: string, columns: ColumnMap<T>, rows: readonly T[]): Promise<void> {
  if (rows.length === 0) return;
  const u = unnestOf(columns, rows);
  const inserted = await tx.$executeRawUnsafe(`INSERT INTO ${table} (${u.names.join(', ')}) SELECT * FROM ${u.sql}`, ...u.params);
  if (inserted !== rows.length) throw new Error(`inserted ${inserted} of ${rows.length} rows into ${table}`);
}
