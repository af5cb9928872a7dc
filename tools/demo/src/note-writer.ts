import type { ToolDatabase } from '@arvis/tool-sdk';

export interface NoteRow {
  capabilityId: string;
  idempotencyKey: string;
  tenant: string;
  principal: string;
  text: string;
}

/**
 * The dispatcher starts a group's bodies together; their notes are gathered for one event-loop
 * turn and inserted by one statement (one commit for the group instead of one per note). Each
 * body still returns only once its own row is committed, and a failed statement fails every body
 * in it, none of whose rows exists.
 */
export class NoteWriter {
  private pending: { row: NoteRow; done: (id?: string, e?: Error) => void }[] = [];

  constructor(private readonly db: ToolDatabase) {}

  insert(row: NoteRow): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ row, done: (id, e) => (e ? reject(e) : resolve(id!)) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const col = <K extends keyof NoteRow>(k: K) => batch.map((p) => p.row[k]);
    try {
      const { rows } = await this.db.query<{ id: string; capability_id: string }>(
        `INSERT INTO notes (capability_id, idempotency_key, tenant, principal, text)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
         RETURNING id::text, capability_id`,
        [col('capabilityId'), col('idempotencyKey'), col('tenant'), col('principal'), col('text')],
      );
      // RETURNING's order is not promised: match rows by capability id (one body per capability).
      const ids = new Map(rows.map((r) => [r.capability_id, r.id]));
      for (const p of batch) {
        const id = ids.get(p.row.capabilityId);
        p.done(id, id === undefined ? new Error(`notes insert returned no row for ${p.row.capabilityId}`) : undefined);
      }
    } catch (e) {
      batch.forEach((p) => p.done(undefined, e as Error));
    }
  }
}

const writers = new WeakMap<ToolDatabase, NoteWriter>();

/** One writer per pool: bodies on the same pool share a statement. */
export function noteWriterFor(db: ToolDatabase): NoteWriter {
  let w = writers.get(db);
  if (!w) writers.set(db, (w = new NoteWriter(db)));
  return w;
}
