import { Client } from 'pg';
import { appendJournal, decisionRefusalEntry, shardOf, type JournalDraft } from '@arvis/journal';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { sqlOn } from './support/raw-sql';

// Guarantees (ADR 0062): with the journal in four chains, an append that spans chains locks
// their heads in shard order, so two appends naming the same runs in opposite orders wait for
// each other instead of deadlocking; every chain stays gap-free and linked; a run's entries all
// land in its one chain; and one final entry per tenant's decision holds across chains.
describe('journal appends across four chains', () => {
  const SHARDS = 4;
  let env: TestEnvironment;
  const clients: Client[] = [];

  const connect = async () => {
    const c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    clients.push(c);
    return c;
  };
  /** A run id of tenant acme in the wanted shard. */
  const runIn = (shard: number, tag: string) => {
    for (let i = 0; ; i++) if (shardOf('acme', `${tag}-${i}`, SHARDS) === shard) return `${tag}-${i}`;
  };
  const refusal = (runId: string, decisionId: string): JournalDraft =>
    decisionRefusalEntry('authorization_refusal', { decisionId, runId, causalId: decisionId, tenant: 'acme', principal: 'alice', tool: 'notes.append' }, { code: 'risk_exceeded', message: 'risk too high' });
  const append = async (c: Client, drafts: JournalDraft[]) => {
    await c.query('BEGIN');
    try {
      const entries = await appendJournal(sqlOn(c), drafts, 'journal-topic');
      await c.query('COMMIT');
      return entries;
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    }
  };

  beforeAll(async () => {
    env = await createEnvironment('shardappend', { journalShards: SHARDS });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  });

  it('has one head per chain, shard 0 keeping the name main', async () => {
    const c = await connect();
    const { rows } = await c.query<{ shard: number; chain: string; last_seq: string }>('SELECT shard, chain, last_seq::text FROM journal_head ORDER BY shard');
    expect(rows).toEqual([0, 1, 2, 3].map((k) => ({ shard: k, chain: k === 0 ? 'main' : `shard-${k}`, last_seq: '0' })));
  });

  it('two appends spanning the same chains in opposite orders both commit: heads are locked in shard order', async () => {
    const r1 = runIn(1, 'opp');
    const r3 = runIn(3, 'opp');
    // Hold both heads, so both appends are inside their locking statement at once.
    const holder = await connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM journal_head WHERE shard = ANY($1::int[]) FOR UPDATE', [[1, 3]]);
    const [a, b] = [await connect(), await connect()];
    const first = append(a, [refusal(r3, 'opp-a3'), refusal(r1, 'opp-a1')]);
    const second = append(b, [refusal(r1, 'opp-b1'), refusal(r3, 'opp-b3')]);
    await new Promise((r) => setTimeout(r, 300));
    await holder.query('COMMIT');
    const [ea, eb] = await Promise.all([first, second]);
    expect(ea.map((e) => e.chain)).toEqual(['shard-3', 'shard-1']);
    expect(eb.map((e) => e.chain)).toEqual(['shard-1', 'shard-3']);
  });

  it('keeps every chain gap-free and linked under concurrent writers, each run in its own one chain', async () => {
    const writers = await Promise.all(Array.from({ length: 6 }, () => connect()));
    await Promise.all(
      writers.map(async (c, w) => {
        for (let t = 0; t < 15; t++) {
          await append(c, Array.from({ length: 3 }, (_, i) => refusal(`load-run-${(w * 7 + t + i) % 20}`, `load-${w}-${t}-${i}`)));
        }
      }),
    );
    const c = await connect();
    const { rows } = await c.query<{ chain: string; n: string; max: string; head: string; unlinked: string }>(
      `SELECT h.chain, count(j.*)::text AS n, coalesce(max(j.journal_seq), 0)::text AS max, h.last_seq::text AS head,
              count(*) FILTER (WHERE j.journal_seq > 1 AND j.prev_hash IS DISTINCT FROM
                (SELECT p.hash FROM journal p WHERE p.chain = j.chain AND p.journal_seq = j.journal_seq - 1)
                OR (j.journal_seq = 1 AND j.prev_hash <> repeat('0', 64)))::text AS unlinked
       FROM journal_head h LEFT JOIN journal j ON j.chain = h.chain GROUP BY h.chain, h.last_seq ORDER BY h.chain`,
    );
    for (const r of rows) {
      expect(r.n).toBe(r.max);
      expect(r.head).toBe(r.max);
      expect(r.unlinked).toBe('0');
    }
    expect(rows.filter((r) => r.n !== '0').length).toBeGreaterThan(1);
    const spread = await c.query<{ run_id: string; chains: number }>(`SELECT run_id, count(DISTINCT chain)::int AS chains FROM journal GROUP BY run_id HAVING count(DISTINCT chain) > 1`);
    expect(spread.rows).toEqual([]);
  });

  it('refuses a second final entry of a decision even when it would land in another chain', async () => {
    const r0 = runIn(0, 'twice');
    const r2 = runIn(2, 'twice');
    const c = await connect();
    await append(c, [refusal(r0, 'twice-d')]);
    // The same tenant's decision id under another run: another chain, the same global key.
    await expect(append(c, [refusal(r2, 'twice-d')])).rejects.toThrow(/journal_final_decision_id_tenant_key/);
    const { rows } = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM journal WHERE final_decision_id = 'twice-d'`);
    expect(rows[0].n).toBe('1');
  });
});
