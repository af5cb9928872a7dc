import { Client } from 'pg';
import { EffectStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { sqlOn } from './support/raw-sql';

// An UPDATE that changes no column an index names (key, INCLUDE, expression or partial-index
// predicate) can be HOT: a new row version on the same page and no index entry at all. The
// columns each move of these tables changes must therefore be in no index (ADR 0048).
const STATE_COLUMNS: Record<string, readonly string[]> = {
  capabilities: ['state'],
  effects: ['state', 'deadline_at', 'started_at'],
  outbox: ['published_at', 'quarantined_at', 'discarded_at'],
};

interface IndexRow {
  table: string;
  index: string;
  columns: string[];
  predicate: string | null;
  expressions: string | null;
}

describe('the state columns of capabilities, effects and outbox', () => {
  let env: TestEnvironment;
  let db: Client;
  beforeAll(async () => {
    env = await createEnvironment('hotrows');
    db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
  });
  afterAll(() => db?.end());

  it('are in no index key, included column, expression or partial-index predicate', async () => {
    const { rows } = await db.query<IndexRow>(
      `SELECT t.relname AS table, i.relname AS index,
              array(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = ANY(x.indkey::int2[]))::text[] AS columns,
              pg_get_expr(x.indpred, x.indrelid) AS predicate, pg_get_expr(x.indexprs, x.indrelid) AS expressions
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       WHERE t.relname = ANY($1) AND t.relnamespace = current_schema()::regnamespace
       ORDER BY t.relname, i.relname`,
      [Object.keys(STATE_COLUMNS)],
    );
    expect(new Set(rows.map((r) => r.table))).toEqual(new Set(Object.keys(STATE_COLUMNS)));
    const offending = rows.flatMap((r) =>
      STATE_COLUMNS[r.table]
        .filter((c) => r.columns.includes(c) || [r.predicate, r.expressions].some((text) => text !== null && new RegExp(`\\b${c}\\b`).test(text)))
        .map((c) => `${r.index}: ${r.table}.${c}`),
    );
    expect(offending).toEqual([]);
  });

  it('leave room on the page for the moved row (fillfactor)', async () => {
    const { rows } = await db.query<{ relname: string; reloptions: string[] | null }>(
      `SELECT relname, reloptions FROM pg_class WHERE relname = ANY($1) AND relkind = 'r' ORDER BY relname`,
      [['capabilities', 'effects', 'confirmations']],
    );
    expect(rows.map((r) => [r.relname, (r.reloptions ?? []).some((o) => /^fillfactor=\d+$/.test(o) && Number(o.split('=')[1]) < 100)])).toEqual([
      ['capabilities', true],
      ['confirmations', true],
      ['effects', true],
    ]);
  });

  it('so that the heartbeat and the start of a claimed effect are HOT updates, and only its close writes index entries', async () => {
    const store = new EffectStore();
    await db.query('BEGIN');
    try {
      const tx = sqlOn(db);
      const effect = { capabilityId: 'cap-hot', intentId: 'int-hot', decisionId: 'dec-hot', idempotencyKey: 'key-hot', holdsKey: true, pool: 'shared' };
      expect(await store.claim(tx, [effect], 'dispatcher-hot', 30_000)).toEqual([]);
      expect(await store.extendPending(tx, [effect.capabilityId], 30_000)).toBe(1);
      expect(await store.start(tx, [{ capabilityId: effect.capabilityId, deadlineMs: 10_000 }])).toEqual(new Set([effect.capabilityId]));
      // Counters of this transaction so far: not flushed, not shared with anyone else.
      const counts = async () =>
        (await db.query<{ upd: number; hot: number }>(`SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'effects'`)).rows[0];
      expect(await counts()).toEqual({ upd: 2, hot: 2 });
      await store.finish(tx, [{ capabilityId: effect.capabilityId, state: 'effect_completed', reasonCode: null }]);
      // The close leaves the index of open effects: the one move that cannot be HOT.
      expect(await counts()).toEqual({ upd: 3, hot: 2 });
    } finally {
      await db.query('ROLLBACK');
    }
  });
});
