import type { ToolDatabase } from '@arvis/tool-sdk';

/** One effect row of a demo tool: one per capability, every column text. */
export type EffectRow = { capabilityId: string } & Record<string, string>;

/** A demo tool's effect table: its name and its columns, each read from the row by the given field. */
export interface EffectTable<Row extends EffectRow> {
  name: string;
  columns: Readonly<Record<string, keyof Row & string>>;
}

/**
 * The dispatcher starts a group's bodies together; their rows are gathered for one event-loop
 * turn and inserted by one statement (one commit for the group instead of one per body). Each
 * body still returns only once its own row is committed, and a failed statement fails every body
 * in it, none of whose rows exists.
 */
export class RowWriter<Row extends EffectRow> {
  private pending: { row: Row; done: (id?: string, e?: Error) => void }[] = [];
  private readonly sql: string;
  private readonly fields: (keyof Row & string)[];

  constructor(
    private readonly db: ToolDatabase,
    private readonly table: EffectTable<Row>,
  ) {
    const names = Object.keys(table.columns);
    if (!names.includes('capability_id')) throw new Error(`${table.name}: an effect table is keyed by capability_id`);
    this.fields = names.map((n) => table.columns[n]);
    this.sql = `INSERT INTO ${table.name} (${names.join(', ')})
       SELECT * FROM unnest(${names.map((_, i) => `$${i + 1}::text[]`).join(', ')})
       RETURNING id::text, capability_id`;
  }

  insert(row: Row): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ row, done: (id, e) => (e ? reject(e) : resolve(id!)) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const { rows } = await this.db.query<{ id: string; capability_id: string }>(
        this.sql,
        this.fields.map((f) => batch.map((p) => p.row[f])),
      );
      // RETURNING's order is not promised: match rows by capability id (one body per capability).
      const ids = new Map(rows.map((r) => [r.capability_id, r.id]));
      for (const p of batch) {
        const id = ids.get(p.row.capabilityId);
        p.done(id, id === undefined ? new Error(`${this.table.name} insert returned no row for ${p.row.capabilityId}`) : undefined);
      }
    } catch (e) {
      batch.forEach((p) => p.done(undefined, e as Error));
    }
  }
}

const writers = new WeakMap<ToolDatabase, Map<string, RowWriter<EffectRow>>>();

/** One writer per pool and table: bodies on the same pool share a statement. */
export function rowWriterFor<Row extends EffectRow>(db: ToolDatabase, table: EffectTable<Row>): RowWriter<Row> {
  let byTable = writers.get(db);
  if (!byTable) writers.set(db, (byTable = new Map()));
  let w = byTable.get(table.name);
  if (!w) byTable.set(table.name, (w = new RowWriter(db, table) as unknown as RowWriter<EffectRow>));
  return w as unknown as RowWriter<Row>;
}
