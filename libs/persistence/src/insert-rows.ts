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
export function unnestOf<T>(
  columns: ColumnMap<T>,
  rows: readonly T[],
  after = 0,
): { names: string[]; sql: string; params: (string | boolean | null)[][]; ref: (name: string) => string } {
  const names = Object.keys(columns);
  // A column's typed parameter, for another part of the statement that reads it again (ADR 0088).
  const ref = (name: string) => {
    const i = names.indexOf(name);
    if (i < 0) throw new Error(`no column ${name} in this unnest`);
    return `$${after + i + 1}::${columns[name][0]}[]`;
  };
  return {
    names,
    sql: `unnest(${names.map(ref).join(', ')}) AS v(${names.join(', ')})`,
    params: names.map((n) => rows.map((r) => asParam(columns[n][1](r)))),
    ref,
  };
}

/**
 * Inserts rows with one INSERT ... SELECT FROM unnest(...) and checks that every row went in.
 * `table` and the column names come from our code, never from input.
 */
export function insertRows<T>(tx: Tx, table: string, columns: ColumnMap<T>, rows: readonly T[]): Promise<void> {
  return insertParts(tx, [rowsPart(table, columns, rows)]);
}

/**
 * One INSERT of a larger statement: its rows' count, and its SQL with parameters numbered after
 * the first `after` of that statement.
 */
export interface InsertPart {
  /** Names the part in a count mismatch (the table). */
  label: string;
  rows: number;
  build(after: number): BuiltPart;
}

export interface BuiltPart {
  sql: string;
  params: (string | boolean | null)[][];
  /**
   * Further INSERTs of the same statement that read this part's parameters (a copy of its rows
   * in another table, built by PostgreSQL, so its values travel once); each count is checked.
   */
  also?: readonly { label: string; rows: number; sql: string }[];
}

/** The INSERT ... SELECT FROM unnest(...) of these rows, as a part of insertParts' statement. */
export function rowsPart<T>(table: string, columns: ColumnMap<T>, rows: readonly T[]): InsertPart {
  return {
    label: table,
    rows: rows.length,
    build: (after) => {
      const u = unnestOf(columns, rows, after);
      return { sql: `INSERT INTO ${table} (${u.names.join(', ')}) SELECT * FROM ${u.sql}`, params: u.params };
    },
  };
}

/**
 * Several tables' rows in one statement (one data-modifying CTE per part), so a transaction that
 * writes four tables pays one round trip instead of four (ADR 0083); every part's count is
 * checked. The parts see one snapshot and none reads another's rows: no part may depend on
 * another having run first (a part's `also` reads its parameters, never its rows). A single
 * INSERT runs as a plain statement.
 */
export async function insertParts(tx: Tx, parts: readonly InsertPart[]): Promise<void> {
  const due = parts.filter((p) => p.rows > 0);
  if (due.length === 0) return;
  const params: (string | boolean | null)[][] = [];
  const statements = due.flatMap((p) => {
    const built = p.build(params.length);
    params.push(...built.params);
    return [{ label: p.label, rows: p.rows, sql: built.sql }, ...(built.also ?? [])];
  });
  if (statements.length === 1) {
    const inserted = await tx.$executeRawUnsafe(statements[0].sql, ...params);
    if (inserted !== statements[0].rows) throw new Error(`inserted ${inserted} of ${statements[0].rows} rows into ${statements[0].label}`);
    return;
  }
  const ctes = statements.map((st, i) => `p${i} AS (${st.sql} RETURNING 1)`);
  const [counts] = await tx.$queryRawUnsafe<Record<string, number>[]>(
    `WITH ${ctes.join(',\n')}\nSELECT ${statements.map((_, i) => `(SELECT count(*) FROM p${i})::int AS n${i}`).join(', ')}`,
    ...params,
  );
  statements.forEach((st, i) => {
    if (counts[`n${i}`] !== st.rows) throw new Error(`inserted ${counts[`n${i}`]} of ${st.rows} rows into ${st.label}`);
  });
}
