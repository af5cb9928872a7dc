import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { chainLink, GENESIS_HASH } from '@arvis/crypto';
import { applyJournalShards, decisionRefusalEntry } from '@arvis/journal';
import { applyMigrations } from '@arvis/persistence';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const SHARDING = '20261202120000_journal_shards';

// Guarantee (ADR 0062): a journal written as one chain before the sharding migration keeps
// verifying after it, unchanged: its head becomes shard 0 and keeps the chain name "main", so
// every stored hash (entries hashed before the `chain` field existed included) still recomputes.
// Given more chains afterwards, new runs go to them and the old chain goes on where it stopped.
describe('a journal of one chain, migrated to chains', () => {
  let stack: Stack;
  let h: Harness;
  const all = join(ROOT, 'prisma', 'migrations');

  const cli = async (args: string[]) => {
    const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = stack.env.appEnv;
    const child = spawn(process.execPath, [CLI, ...args, '--json'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (stdout === '') throw new Error(`cli ${args.join(' ')} exited ${code} without a report: ${stderr}`);
    return { code, doc: JSON.parse(stdout) };
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`);
    const before = mkdtempSync(join(tmpdir(), 'arvis-migrations-'));
    for (const m of readdirSync(all).filter((m) => m < SHARDING || m === 'migration_lock.toml')) cpSync(join(all, m), join(before, m), { recursive: true });
    stack = await Stack.create('onechain', { migrationsDir: before });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  /** Entries appended as the one-chain appender did: under the one head row (id 1); the first two hashed before `chain` existed. */
  const writeOneChain = async (n: number): Promise<string[]> => {
    const hashes: string[] = [];
    let prev = GENESIS_HASH;
    for (let seq = 1; seq <= n; seq++) {
      const { trace: _t, admittedAt: _a, ...draft } = decisionRefusalEntry(
        'authorization_refusal',
        { decisionId: `old-${seq}`, runId: `old-run-${seq % 3}`, causalId: `old-${seq}`, tenant: 'acme', principal: 'alice', tool: 'notes.append' },
        { code: 'risk_exceeded', message: 'risk too high' },
      );
      const unhashed = { ...draft, specVersion: 1, recordedAt: '2026-12-01T10:00:00.000Z', ...(seq > 2 ? { chain: 'main' } : {}), journalSeq: String(seq), prevHash: prev };
      const { hash, canonical } = chainLink(prev, unhashed);
      await h.query(
        `INSERT INTO journal (journal_seq, kind, decision_id, run_id, tenant, tool, effect_boundary, success, reason_code, final_decision_id, entry, prev_hash, hash, recorded_at)
         VALUES ($1, 'authorization_refusal', $2, $3, 'acme', 'notes.append', 'pre_effect_refusal', false, 'risk_exceeded', $2, $4, $5, $6, '2026-12-01T10:00:00Z')`,
        [seq, draft.decisionId, draft.runId, canonical, prev, hash],
      );
      hashes.push(hash);
      prev = hash;
    }
    await h.query('UPDATE journal_head SET last_seq = $1, last_hash = $2 WHERE id = 1', [n, prev]);
    return hashes;
  };

  it('verifies unchanged after the migration, and goes on in four chains', async () => {
    const hashes = await writeOneChain(6);
    const report = await applyMigrations(stack.env.databaseUrl, all);
    // The sharding migration first, then whatever came after it.
    expect(report.applied).toEqual(readdirSync(all).filter((m) => m >= SHARDING && m !== 'migration_lock.toml').sort());
    expect(report.applied[0]).toBe(SHARDING);
    expect(await h.query('SELECT shard, chain, last_seq::text, last_hash FROM journal_head')).toEqual([{ shard: 0, chain: 'main', last_seq: '6', last_hash: hashes[5] }]);

    const after = await cli(['verify']);
    expect(after.doc).toMatchObject({ intact: true, firstBreak: null, head: { last_seq: '6' }, chain: { rowsChecked: 6, findings: [] } });
    expect(after.doc.chains.map((c: { chain: string }) => c.chain)).toEqual(['main']);
    expect(after.code).toBe(0);

    // More chains, as `npm run migrate` gives them with JOURNAL_SHARDS=4; then new work.
    const pool = new Pool({ connectionString: stack.env.databaseUrl, max: 1 });
    try {
      expect(await applyJournalShards(pool, 4)).toEqual({ ok: true, shards: 4, created: 3 });
      expect(await applyJournalShards(pool, 2)).toEqual({ ok: false, reason: 'cannot_shrink', shards: 4, configured: 2 });
    } finally {
      await pool.end();
    }
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    const decisions = (await Promise.all(['new-a', 'new-b', 'new-c', 'new-d', 'new-e'].map((r) => h.decisions(r, 2)))).flat();
    await h.client.send(decisions);
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil('every new decision to end', async () => (await h.finalRows(ids)).length === ids.length);

    const grown = await cli(['verify']);
    expect(grown.doc).toMatchObject({ intact: true, firstBreak: null });
    expect(grown.doc.chains.map((c: { chain: string }) => c.chain)).toEqual(['main', 'shard-1', 'shard-2', 'shard-3']);
    expect(grown.code).toBe(0);
    // The old rows are where they were, with the hashes they had; main went on from seq 7 if it got new runs.
    const old = await h.query<{ journal_seq: string; hash: string }>(`SELECT journal_seq::text, hash FROM journal WHERE chain = 'main' AND journal_seq <= 6 ORDER BY journal.journal_seq`);
    expect(old.map((r) => r.hash)).toEqual(hashes);
    const used = await h.query<{ chain: string }>(`SELECT DISTINCT chain FROM journal WHERE run_id LIKE 'new-%'`);
    expect(used.length).toBeGreaterThan(1);
  });
});
