import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { localKeyEnv, localKeys } from '../scripts/local-keys';
import { OPERATOR_RUN_ID } from '@arvis/contracts';
import { chainOfShard, shardOf } from '@arvis/journal';
import { adminApi } from './support/admin-api';
import { Harness } from './support/harness';
import { DATA, ROOT } from './support/services';
import { Stack } from './support/stack';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const RUNS = 8;
const PER_RUN = 3;

// Guarantees (ADR 0062): with the journal in four chains, every decision gets exactly one final
// entry, a run's entries all sit in one chain, the packed client sees every final entry once
// (deduplicating by chain and seq), each chain is checkpointed, and `verify`, `verify
// --from-topic`, `verify --against-topic` and `replay` pass. The CLI runs compiled, as an analyst runs it.
describe('decisions over four journal chains', () => {
  const keys = localKeyEnv(localKeys(DATA));
  let stack: Stack;
  let h: Harness;
  let ids: string[];
  let api: ReturnType<typeof adminApi>;

  const cli = async (args: string[], withDatabase: boolean) => {
    const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = stack.env.appEnv;
    const env = { PATH: process.env.PATH ?? '', KAFKA_BROKERS, ARVIS_TOPIC_PREFIX, JOURNAL_CHECKPOINT_VERIFICATION_KEYS: keys.JOURNAL_CHECKPOINT_VERIFICATION_KEYS };
    const child = spawn(process.execPath, [CLI, ...args, '--json'], { env: withDatabase ? { ...env, DATABASE_URL } : env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    stack = await Stack.create('fourchains', { journalShards: 4 });
    const env = { JOURNAL_CHECKPOINT_SIGNING_KEY_ID: keys.JOURNAL_CHECKPOINT_SIGNING_KEY_ID, JOURNAL_CHECKPOINT_SIGNING_KEY: keys.JOURNAL_CHECKPOINT_SIGNING_KEY, JOURNAL_CHECKPOINT_EVERY_MS: '1000' };
    api = adminApi(await stack.start('authorizer', 'authorizer', { env }));
    await stack.start('dispatcher', 'dispatcher', { env });
    h = await new Harness(stack.env).start();
    const decisions = (await Promise.all(Array.from({ length: RUNS }, (_, r) => h.decisions(`chains-run-${r}`, PER_RUN)))).flat();
    // One decision of each run is refused by policy: refusals and results share the chains.
    for (const d of decisions.filter((d) => d.decisionId.endsWith(':d2'))) d.riskScore = 0.99;
    ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('every decision to end', async () => (await h.finalRows(ids)).length === ids.length, 120_000);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('gives every decision exactly one final entry, each run in one chain, over several chains', async () => {
    const finals = await h.finalRows(ids);
    expect(finals.map((f) => f.decision_id).sort()).toEqual([...ids].sort());
    const perRun = await h.query<{ run_id: string; chains: string[] }>(
      `SELECT run_id, array_agg(DISTINCT chain) AS chains FROM journal WHERE run_id LIKE 'chains-run-%' GROUP BY run_id ORDER BY run_id`,
    );
    expect(perRun).toHaveLength(RUNS);
    for (const r of perRun) expect(r.chains).toHaveLength(1);
    expect(new Set(perRun.map((r) => r.chains[0])).size).toBeGreaterThan(1);
    const heads = await h.query<{ chain: string; last_seq: string; n: string }>(
      `SELECT h.chain, h.last_seq::text, (SELECT count(*) FROM journal j WHERE j.chain = h.chain)::text AS n FROM journal_head h ORDER BY h.shard`,
    );
    expect(heads.map((x) => x.chain)).toEqual(['main', 'shard-1', 'shard-2', 'shard-3']);
    for (const x of heads) expect(x.last_seq).toBe(x.n);
  });

  it('the packed client sees every entry once and every final entry once', async () => {
    const [{ n }] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM journal');
    await h.waitUntil('the watcher to read every entry', () => h.journal.entries.size === Number(n));
    const finals = h.journal.finalEntriesFor(ids);
    expect(finals.size).toBe(ids.length);
    for (const id of ids) expect(finals.get(id)).toHaveLength(1);
    // Seqs repeat across chains: keyed by seq alone, entries of different chains would collide.
    const seqs = [...h.journal.entries.values()].map((e) => e.journalSeq);
    expect(new Set(seqs).size).toBeLessThan(seqs.length);
  });

  it('names the chain of an operator act\'s entry in the admin answer, beside its seq', async () => {
    // acme's operator run hashes to shard 3 of 4: a seq alone would name four entries.
    const chain = chainOfShard(shardOf('acme', OPERATOR_RUN_ID, 4));
    expect(chain).toBe('shard-3');
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const granted = await api('POST', '/admin/consents/grant', olga, { tenant: 'acme', principal: 'zed', consentKey: 'chains', note: 'four chains' });
    expect(granted).toMatchObject({ status: 200, body: { journalChain: chain, journalSeq: expect.any(String) } });
    const [row] = await h.query<{ kind: string; run_id: string }>('SELECT kind, run_id FROM journal WHERE chain = $1 AND journal_seq = $2', [chain, granted.body.journalSeq]);
    expect(row).toEqual({ kind: 'operator_action', run_id: OPERATOR_RUN_ID });
  });

  it('signs each chain\'s head, and verify, verify --from-topic, --against-topic and replay pass', async () => {
    const heads = await h.query<{ chain: string; last_seq: string }>(`SELECT chain, last_seq::text FROM journal_head WHERE last_seq > 0`);
    await h.waitUntil('a checkpoint of every chain\'s head', () => heads.every((x) => h.journal.checkpoints.some((c) => c.chain === x.chain && c.seq === x.last_seq)));

    const verify = await cli(['verify'], true);
    expect(verify.doc).toMatchObject({ intact: true, firstBreak: null });
    expect(verify.doc.chains.map((c: { chain: string }) => c.chain)).toEqual(['main', 'shard-1', 'shard-2', 'shard-3']);
    expect(verify.code).toBe(0);

    const fromTopic = await cli(['verify', '--from-topic'], false);
    expect(fromTopic.doc).toMatchObject({ intact: true, findings: [] });
    const onTopic = fromTopic.doc.chains.map((c: { chain: string; signedThrough: string; unsigned: number }) => [c.chain, c.signedThrough, c.unsigned]).sort();
    expect(onTopic).toEqual(heads.map((x) => [x.chain, x.last_seq, 0]).sort());
    expect(fromTopic.code).toBe(0);

    const against = await cli(['verify', '--against-topic'], true);
    expect(against.doc).toMatchObject({ intact: true, database: { findings: [] } });
    expect(against.doc.database.topicCopiesCompared).toBe(against.doc.database.rowsChecked);
    expect(against.code).toBe(0);

    const replay = await cli(['replay', 'chains-run-5'], true);
    expect(replay.doc).toMatchObject({ matches: true, entriesReplayed: expect.any(Number), mismatches: [] });
    expect(replay.code).toBe(0);
  });
});
