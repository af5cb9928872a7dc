import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createEnvironment, type TestEnvironment } from './support/environment';

// A row above about 2 KB is toasted by default: pglz is tried on its largest values, then they
// move to the table's TOAST relation (a second heap insert, a TOAST index entry, and a TOAST read
// for every reader). An intent row is about 2.2 KB. The path's tables keep their rows whole up to
// about a page instead (toast_tuple_target, ADR 0092).

/** Incompressible text (what signatures and hashes are): pglz cannot shrink it below the target. */
const incompressible = (bytes: number) => randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64').slice(0, bytes);

/** One row of each table with `text` as its largest value, and nothing else of note. */
const INSERTS: Record<string, (text: string) => [string, unknown[]]> = {
  intents: (text) => [
    `INSERT INTO intents (intent_id, decision_id, capability_id, run_id, causal_id, tenant, principal, tool, process_id,
       payload_canonical, payload_sha256, effect_context, effect_context_commitment, idempotency_key, catalog_fingerprint,
       intent_commitment, receipt_id, durable_position, store_fingerprint, committed_at, message)
     VALUES ('i', 'd', 'c', 'run', 'cause', 't', 'p', 'notes.append', 'proc', '{}', 'x', '{}', 'x', 'k', 'x', 'x', 'r', 1, 'store', now(), $1)`,
    [text],
  ],
  outbox: (text) => [`INSERT INTO outbox (topic, message_key, payload) VALUES ('arvis.intents', 'run', $1)`, [text]],
  decision_inbox: (text) => [
    `INSERT INTO decision_inbox (decision_id, run_id, causal_id, tool, body_sha256, status, tenant, body) VALUES ('d', 'run', 'cause', 'notes.append', 'x', 'received', 't', $1)`,
    [text],
  ],
  journal: (text) => [
    `INSERT INTO journal (journal_seq, kind, decision_id, run_id, tenant, tool, effect_boundary, success, entry, prev_hash, hash, recorded_at)
     VALUES (1, 'tool_result', 'd', 'run', 't', 'notes.append', 'none', true, $1, 'x', 'x', now())`,
    [text],
  ],
};

describe('a row of the decision path between 2 KB and a page', () => {
  let env: TestEnvironment;
  let db: Client;
  beforeAll(async () => {
    env = await createEnvironment('inline');
    db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
  });
  afterAll(() => db?.end());

  /** Rows this transaction inserted into `table`'s TOAST relation (this transaction's own counters). */
  const toastInserts = async (table: string) =>
    (
      await db.query<{ n: number }>(
        `SELECT coalesce((SELECT n_tup_ins::int FROM pg_stat_xact_all_tables WHERE relid = c.reltoastrelid), 0) AS n
         FROM pg_class c WHERE c.oid = $1::regclass`,
        [table],
      )
    ).rows[0].n;

  /** Inserts one row holding `text` into `table` (or into `into`, a copy of it) and counts its TOAST inserts; rolled back. */
  const insertAndCount = async (table: string, text: string, into = table): Promise<number> => {
    await db.query('BEGIN');
    try {
      const [sql, values] = INSERTS[table](text);
      await db.query(sql.replace(`INSERT INTO ${table} `, `INSERT INTO ${into} `), values);
      return await toastInserts(into);
    } finally {
      await db.query('ROLLBACK');
    }
  };

  it('is toasted by a table with PostgreSQL\'s default target (so the count below can see it)', async () => {
    await db.query('BEGIN');
    try {
      await db.query('CREATE TABLE intents_default_target (LIKE intents INCLUDING DEFAULTS)');
      const [sql, values] = INSERTS.intents(incompressible(3000));
      await db.query(sql.replace('INSERT INTO intents ', 'INSERT INTO intents_default_target '), values);
      expect(await toastInserts('intents_default_target')).toBeGreaterThan(0);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it.each(Object.keys(INSERTS))('is stored whole in %s, with no TOAST insert', async (table) => {
    expect(await insertAndCount(table, incompressible(3000))).toBe(0);
  });

  it('still goes to TOAST when it would not fit a page', async () => {
    expect(await insertAndCount('intents', incompressible(12_000))).toBeGreaterThan(0);
  });
});
