import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, chainHash, generateEd25519KeyPair, loadEd25519PrivateKey, signCanonical } from '@arvis/crypto';
import { localKeyEnv, localKeys } from '../scripts/local-keys';
import { Harness } from './support/harness';
import { DATA, ROOT } from './support/services';
import { Stack } from './support/stack';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const EVERY_ENTRIES = 4;

// Guarantees (ADR 0025, 0026): the journal topic carries signed checkpoints of the chain head;
// an analyst holding only the public key verifies the topic without the database, and compares
// the database with what was signed. The CLI runs as the analyst runs it: compiled, its own process.
describe('signed checkpoints on the journal topic', () => {
  const keys = localKeyEnv(localKeys(DATA));
  let stack: Stack;
  let h: Harness;

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
  const headSeq = async () => Number((await h.query<{ n: string }>('SELECT last_seq::text AS n FROM journal_head WHERE shard = 0'))[0].n);
  /** Sends n decisions and waits until a checkpoint signs the new head. */
  const decideAndCheckpoint = async (runId: string, n: number) => {
    const decisions = await h.decisions(runId, n);
    await h.client.send(decisions);
    await h.waitUntil(`${n} final entries of ${runId}`, async () => (await h.finalRows(decisions.map((d) => d.decisionId))).length === n);
    const head = await headSeq();
    await h.waitUntil(`a checkpoint of seq ${head} on the topic`, () => h.journal.checkpoints.some((c) => Number(c.seq) === head));
    return head;
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`);
    stack = await Stack.create('checkpoints');
    // A short interval signs the tail promptly; the count makes several checkpoints per batch.
    const env = { JOURNAL_CHECKPOINT_SIGNING_KEY_ID: keys.JOURNAL_CHECKPOINT_SIGNING_KEY_ID, JOURNAL_CHECKPOINT_SIGNING_KEY: keys.JOURNAL_CHECKPOINT_SIGNING_KEY, JOURNAL_CHECKPOINT_EVERY_ENTRIES: String(EVERY_ENTRIES), JOURNAL_CHECKPOINT_EVERY_MS: '1500' };
    await stack.start('authorizer', 'authorizer', { env });
    await stack.start('dispatcher', 'dispatcher', { env });
    h = await new Harness(stack.env).start();
    await decideAndCheckpoint('ckpt-a', 8);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('verifies the intact topic with no database, and the database against it', async () => {
    const fromTopic = await cli(['verify', '--from-topic'], false);
    expect(fromTopic.doc).toMatchObject({ intact: true, findings: [], chains: [{ chain: 'main', entries: 8, anchor: 'genesis', signedThrough: '8', unsigned: 0 }] });
    expect(fromTopic.code).toBe(0);
    const against = await cli(['verify', '--against-topic'], true);
    expect(against.doc).toMatchObject({ intact: true, database: { rowsChecked: 8, topicCopiesCompared: 8, findings: [] } });
    expect(against.doc.database.checkpointsCompared).toBeGreaterThanOrEqual(1);
    expect(against.code).toBe(0);
    // Entries carry their chain, inside the hashed text; tail and the watcher never took a checkpoint for an entry.
    expect(h.journal.entries.size).toBe(8);
    expect([...h.journal.entries.values()].every((e) => e.chain === 'main')).toBe(true);
    expect(h.journal.unreadable).toBe(0);
  });

  it('--against-topic names the first row of a database rewritten consistently, even after a new checkpoint signs its head', async () => {
    const firstRewritten = 6;
    await rewriteTail(h, firstRewritten);
    // The database alone still looks intact: every hash recomputes and the head matches.
    const selfCheck = await cli(['verify'], true);
    expect(selfCheck.doc.chain.findings).toEqual([]);
    await decideAndCheckpoint('ckpt-b', EVERY_ENTRIES);
    const { code, doc } = await cli(['verify', '--against-topic'], true);
    expect(code).toBe(2);
    expect(doc.firstBreak).toMatch(new RegExp(`^journal_seq ${firstRewritten}: the database's row differs from the topic's copy, which checkpoint main@\\d+ signs`));
    expect(doc.database.findings.map((f: { kind: string }) => f.kind)).toContain('checkpoint_mismatch');
  });

  it('--from-topic names a forged record produced onto the topic by its seq', async () => {
    const forgedSeq = 3;
    const genuine = h.journal.entries.get(`main@${forgedSeq}`)!;
    const { hash: _genuineHash, ...unhashed } = { ...genuine, output: { noteId: 'forged' } };
    // A consistent forgery: its own hash recomputes. Only the copies and checkpoints expose it.
    await h.produceRaw(h.topics.journal, genuine.runId, JSON.stringify({ ...unhashed, hash: chainHash(genuine.prevHash, unhashed) }));
    const { code, doc } = await cli(['verify', '--from-topic'], false);
    expect(code).toBe(2);
    expect(doc.firstBreak).toMatch(new RegExp(`^journal_seq ${forgedSeq}: the copy at partition \\d+ offset \\d+ differs`));

    // A checkpoint signed with a key the analyst does not hold is named too.
    const stranger = { keyId: keys.JOURNAL_CHECKPOINT_SIGNING_KEY_ID, privateKey: loadEd25519PrivateKey(generateEd25519KeyPair().privateKeyPem) };
    const fake = signCanonical({ recordType: 'checkpoint', specVersion: 1, chain: 'main', seq: '2', hash: 'f'.repeat(64), signedAt: new Date().toISOString() }, stranger);
    await h.produceRaw(h.topics.journal, 'main', JSON.stringify(fake));
    const again = await cli(['verify', '--from-topic'], false);
    expect(again.doc.findings[0]).toMatchObject({ kind: 'bad_signature', journalSeq: '2' });
    expect(again.code).toBe(2);
  });
});

/**
 * What a superuser can do: with triggers off, rewrite the rows from `from` to the head and the
 * head itself so that the database's chain is self-consistent again. The head row is locked
 * first, so no append interleaves.
 */
async function rewriteTail(h: Harness, from: number): Promise<void> {
  const c = await h.db.connect();
  try {
    await c.query('BEGIN');
    await c.query('SET LOCAL session_replication_role = replica');
    await c.query('SELECT last_seq FROM journal_head WHERE shard = 0 FOR UPDATE');
    const rows = (await c.query<{ journal_seq: string; entry: string; prev_hash: string }>('SELECT journal_seq::text, entry, prev_hash FROM journal WHERE journal_seq >= $1 ORDER BY journal.journal_seq', [from])).rows;
    let prevHash = rows[0].prev_hash;
    for (const r of rows) {
      const entry = { ...JSON.parse(r.entry), prevHash, output: { noteId: `rewritten-${r.journal_seq}` } };
      const hash = chainHash(prevHash, entry);
      await c.query('UPDATE journal SET entry = $2, prev_hash = $3, hash = $4 WHERE journal_seq = $1', [r.journal_seq, canonicalJson(entry), prevHash, hash]);
      prevHash = hash;
    }
    await c.query('UPDATE journal_head SET last_hash = $1 WHERE shard = 0', [prevHash]);
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  } finally {
    c.release();
  }
}
