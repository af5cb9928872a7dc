import { Client } from 'pg';
import { DISTRIBUTION, distributedTables } from '@arvis/persistence';
import { createEnvironment, type TestEnvironment } from './support/environment';

// A distributed PostgreSQL (Citus-style) can enforce a unique key of a sharded table only on
// each shard, so every primary key, unique constraint and unique index must hold the table's
// distribution column (ADR 0067). These are the keys the schema does not yet bring under that
// rule, each with the section of ADR 0067 that names the change it needs. The list must match
// exactly: a new key that breaks the rule fails, and so does an entry left here after its fix.
const NOT_YET_DISTRIBUTABLE: readonly string[] = [
  // "Capabilities and effects carry no tenant": the column itself is missing, so every key is.
  'capabilities: no column tenant',
  'capabilities.capabilities_pkey',
  'capabilities.capabilities_intent_id_key',
  'effects: no column tenant',
  'effects.effects_pkey',
  'effects.effects_live_key_key',
  // "Intent ids, receipts and positions": keys that are global today.
  'intents.intents_pkey',
  'intents.intents_capability_id_key',
  'intents.intents_receipt_id_key',
  'intents.intents_store_fingerprint_durable_position_key',
  // "Confirmations": its id and the reservation.
  'confirmations.confirmations_pkey',
  'confirmations.confirmations_reserved_by_key',
  // "The journal by chain": one final entry per decision over all chains, hashes, results.
  'journal.journal_final_decision_id_tenant_key',
  'journal.journal_hash_key',
  'journal.journal_result_capability_id_key',
  // "The journal by chain": the head is keyed by shard number.
  'journal_head.journal_head_pkey',
];

interface UniqueKey {
  table: string;
  index: string;
  columns: string[];
}

describe('the distribution map (ADR 0067) against the migrated schema', () => {
  let env: TestEnvironment;
  let db: Client;
  beforeAll(async () => {
    env = await createEnvironment('distribution');
    db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
  });
  afterAll(() => db?.end());

  it('names every table of the database but those of tool packages, and no table that is not there', async () => {
    const { rows } = await db.query<{ relname: string; tool: boolean }>(
      `SELECT c.relname, EXISTS (SELECT 1 FROM "_arvis_tool_tables" t WHERE t.table_name = c.relname) AS tool
       FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname`,
    );
    // The demo's tools are packages (they adopted their tables), so their tables are theirs.
    expect(rows.filter((r) => r.tool).length).toBeGreaterThan(0);
    expect(rows.filter((r) => !r.tool).map((r) => r.relname)).toEqual(Object.keys(DISTRIBUTION).sort());
  });

  it('gives every unique key of a distributed table its distribution column, but for the keys ADR 0067 lists', async () => {
    const distributed = distributedTables();
    const { rows: columns } = await db.query<{ table: string; column: string }>(
      `SELECT c.relname AS table, a.attname AS column FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped`,
      [distributed.map((d) => d.table)],
    );
    // Key columns only (an INCLUDE column is not part of what is unique); an expression is not its column.
    // Primary keys and unique constraints have their unique index; exclusion constraints are read too.
    const { rows: keys } = await db.query<UniqueKey>(
      `SELECT t.relname AS table, i.relname AS index,
              array(SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum WHERE k.n <= x.indnkeyatts ORDER BY k.n)::text[] AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       LEFT JOIN pg_constraint k ON k.conindid = x.indexrelid AND k.conrelid = t.oid
       WHERE t.relname = ANY($1) AND t.relnamespace = current_schema()::regnamespace
         AND (x.indisunique OR x.indisprimary OR k.contype IN ('p', 'u', 'x'))
       ORDER BY t.relname, i.relname`,
      [distributed.map((d) => d.table)],
    );
    const columnOf = new Map(distributed.map((d) => [d.table, d.column]));
    // Every distributed table has a key (Citus needs none, but ours all do; a table without one is worth a look).
    expect(new Set(keys.map((k) => k.table))).toEqual(new Set(columnOf.keys()));
    const missing = distributed.filter((d) => !columns.some((c) => c.table === d.table && c.column === d.column)).map((d) => `${d.table}: no column ${d.column}`);
    const breaking = keys.filter((k) => !k.columns.includes(columnOf.get(k.table)!)).map((k) => `${k.table}.${k.index}`);
    expect([...missing, ...breaking].sort()).toEqual([...NOT_YET_DISTRIBUTABLE].sort());
  });

  it('keeps each co-location group on one column type, as co-located shards need', async () => {
    const distributed = distributedTables();
    const { rows } = await db.query<{ table: string; column: string; type: string }>(
      `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped`,
      [distributed.map((d) => d.table)],
    );
    const typesOf = new Map<string, Set<string>>();
    for (const d of distributed) {
      const row = rows.find((r) => r.table === d.table && r.column === d.column);
      if (!row) continue; // a missing column is the test above's finding
      typesOf.set(d.colocation, (typesOf.get(d.colocation) ?? new Set()).add(row.type));
    }
    expect(Object.fromEntries([...typesOf].map(([g, t]) => [g, [...t]]))).toEqual({ tenant: ['text'], chain: ['text'], console_session: ['text'] });
  });
});
