import { Client } from 'pg';
import { Database, type Tx } from '@arvis/persistence';
import { CapabilityStore, ConfirmationStore, EffectStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';

// A named statement's generic plan is made once per session from the table's size at that time
// and kept while the table grows (ADR 0082). The service's sessions plan with sequential scans
// off, so the hot path's keyed statements, prepared while their tables were empty, still go
// through an index once the tables hold 20,000 rows: each reads a handful of rows, not the table.
describe('tables grown after their statements were planned are not read whole', () => {
  let env: TestEnvironment;
  let c: Client;
  let db: Database;
  const effects = new EffectStore();
  // Every store method used here takes its transaction; the confirmation store's own client is never reached.
  const capabilities = new CapabilityStore(new ConfirmationStore(undefined as never));
  const ROWS = 20_000;

  /** The hot path's keyed statements on effects and capabilities, each moving nothing (no such ids). */
  const hotStatements = async (tx: Tx) => {
    await effects.start(tx, [{ capabilityId: 'none-1', deadlineMs: 1000 }]);
    await effects.finish(tx, [{ capabilityId: 'none-1', state: 'effect_completed', reasonCode: null }]);
    await effects.closeWaiters(tx, [{ capabilityId: 'none-1', state: 'effect_completed' }]);
    await capabilities.activateAndConsume(tx, [{ capabilityId: 'none-1', receiptId: 'none-1' }], 'dispatcher-x');
  };

  beforeAll(async () => {
    env = await createEnvironment('plans');
    c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    // No analyze may refresh the plans during the spec: that is what a burst does not wait for.
    for (const t of ['effects', 'capabilities', 'intents']) await c.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
    // One session, as the service's pool would hand it out, with the service's session options.
    db = new Database({ url: env.databaseUrl, poolSize: 1, txTimeoutMs: 30_000 });
    // Past the fifth execution PostgreSQL keeps a named statement's generic plan: made here, on empty tables.
    for (let i = 0; i < 8; i++) await db.tx(hotStatements);
    await c.query(`INSERT INTO effects (capability_id, intent_id, decision_id, state, dispatcher_id, finished_at, waits_for)
      SELECT 'cap-' || g, 'i-' || g, 'd-' || g, 'effect_completed', 'x', now(), CASE WHEN g % 100 = 0 THEN 'cap-1' END FROM generate_series(1, ${ROWS}) g`);
    await c.query(`INSERT INTO capabilities (capability_id, decision_id, intent_id, state, commitment)
      SELECT 'cap-' || g, 'd-' || g, 'i-' || g, 'consumed', 'x' FROM generate_series(1, ${ROWS}) g`);
    await c.query(`INSERT INTO intents (intent_id, decision_id, capability_id, run_id, causal_id, tenant, principal, tool, process_id,
        payload_canonical, payload_sha256, effect_context, effect_context_commitment, idempotency_key, catalog_fingerprint,
        intent_commitment, receipt_id, durable_position, store_fingerprint, committed_at)
      SELECT 'i-' || g, 'd-' || g, 'cap-' || g, 'run', 'c-' || g, 't', 'p', 'notes.append', 'proc', '{}', 'x', '{}', 'x', 'k-' || g, 'x',
             'x', 'r-' || g, g, 'store', now() FROM generate_series(1, ${ROWS}) g`);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await c?.end();
  });

  it('runs the claim, start, close and waiter statements through an index on tables of 20,000 rows', async () => {
    const scans = await db.tx(async (tx) => {
      await hotStatements(tx);
      // This transaction's own reads of each table (pg_stat_xact_*: nothing flushed yet, nothing of other sessions).
      return tx.$queryRaw<{ relname: string; seq_scan: bigint; seq_tup_read: bigint }[]>`
        SELECT relname, seq_scan, seq_tup_read FROM pg_stat_xact_user_tables
        WHERE relname IN ('effects', 'capabilities', 'intents') ORDER BY relname`;
    });
    expect(scans.map((s) => ({ table: s.relname, seqScans: Number(s.seq_scan), rowsScanned: Number(s.seq_tup_read) }))).toEqual([
      { table: 'capabilities', seqScans: 0, rowsScanned: 0 },
      { table: 'effects', seqScans: 0, rowsScanned: 0 },
      { table: 'intents', seqScans: 0, rowsScanned: 0 },
    ]);
  });

  // With sequential scans off, a plan that must still scan (a one-row table) costs above every JIT
  // threshold; a service session compiling it with LLVM at each execution spent seconds of CPU
  // on one row (the scrape-time checkpoint read, ADR 0082). Service sessions run with JIT off.
  it('never JIT-compiles a statement that scans a small table', async () => {
    const [plan] = await db.$queryRaw<{ 'QUERY PLAN': { Plan: unknown; JIT?: unknown }[] }[]>`
      EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(last_seq)::bigint AS s FROM journal_head`;
    expect(plan['QUERY PLAN'][0].JIT).toBeUndefined();
  });
});
