import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { VerifyJournalService } from '../apps/cli/src/verify-journal/verify-journal.service';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Guarantee (ADR 0017): replay reproduces results without running a tool; verify finds a row
// changed, deleted, reordered or truncated. The CLI runs as the analyst runs it: the compiled
// build, as its own process, configured only through the environment.
describe('the analyst CLI (verify, run, replay, tail)', () => {
  const runId = 'cli-run';
  let stack: Stack;
  let h: Harness;
  let decisionIds: string[];

  const cli = (args: string[], timeoutMs = 60_000): Promise<CliResult> => {
    const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = stack.env.appEnv;
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`cli ${args.join(' ')} still running after ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  };
  const cliJson = async (args: string[]) => {
    const r = await cli([...args, '--json']);
    return { ...r, doc: JSON.parse(r.stdout) };
  };

  /** Runs statements against the append-only journal: its trigger is off only inside this transaction. */
  const tamper = async (...statements: string[]) => {
    const c = await h.db.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE journal DISABLE TRIGGER journal_append_only');
      for (const s of statements) await c.query(s);
      await c.query('ALTER TABLE journal ENABLE TRIGGER journal_append_only');
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    } finally {
      c.release();
    }
  };
  const restore = () => tamper('DELETE FROM journal', 'INSERT INTO journal SELECT * FROM journal_snapshot');
  const lastSeq = async () => Number((await h.query<{ n: string }>('SELECT max(journal_seq)::text AS n FROM journal'))[0].n);

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`);
    stack = await Stack.create('cli');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    const decisions = await h.decisions(runId, 10);
    decisionIds = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('ten final entries', async () => (await h.finalRows(decisionIds)).length === 10);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  describe('on the intact record', () => {
    it('verify exits 0', async () => {
      const text = await cli(['verify']);
      expect(text.stdout).toContain('verify: journal intact');
      expect(text.code).toBe(0);
      const { code, doc } = await cliJson(['verify']);
      expect(code).toBe(0);
      expect(doc).toMatchObject({ intact: true, firstBreak: null, chain: { rowsChecked: 10, lastSeq: '10', findings: [] } });
      expect(doc.bijections).toMatchObject({ consumedCapabilities: 10, toolResults: 10, findings: [] });
    });

    it('verify reads the journal in batches and still sees one contiguous chain', async () => {
      const db = new Pool({ connectionString: stack.env.databaseUrl, max: 1 });
      try {
        const report = await new VerifyJournalService(db, 3).verify();
        expect(report.intact).toBe(true);
        expect(report.chain.rowsChecked).toBe(10);
      } finally {
        await db.end();
      }
    });

    it('run shows each decision with its final entry and its consumed capability', async () => {
      const text = await cli(['run', runId]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`run ${runId}: 10 decisions, 10 with a final entry, 0 awaiting one`);
      const { code, doc } = await cliJson(['run', runId]);
      expect(code).toBe(0);
      expect(doc.decisions.map((d: { decisionId: string }) => d.decisionId).sort()).toEqual([...decisionIds].sort());
      for (const d of doc.decisions) {
        expect(d).toMatchObject({ final: { kind: 'tool_result', effectBoundary: 'effect_completed', success: true }, pending: [], capability: { state: 'consumed' }, problems: [] });
      }
      expect((await cli(['run', 'no-such-run'])).code).toBe(3);
    });

    it('replay rebuilds the ten results from stored material and matches the journal', async () => {
      const notesBefore = (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM notes'))[0].n;
      const { code, doc } = await cliJson(['replay', runId]);
      expect(code).toBe(0);
      expect(doc).toMatchObject({ runId, known: true, matches: true, mismatches: [] });
      expect(doc.results.map((r: { decisionId: string }) => r.decisionId).sort()).toEqual([...decisionIds].sort());
      for (const r of doc.results) expect(r).toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { noteId: expect.any(String) } });
      expect((await cli(['replay', runId])).stdout).toContain('replay matches the journal');
      // No tool ran: the demo tool's effect table did not grow.
      expect((await h.query<{ n: string }>('SELECT count(*)::text AS n FROM notes'))[0].n).toBe(notesBefore);
    });

    it('tail prints the run from the journal topic, once per journalSeq', async () => {
      const r = await cli(['tail', '--from-beginning', '--run', runId, '--limit', '10', '--json']);
      expect(r.code).toBe(0);
      const entries = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { journalSeq: string; runId: string });
      expect(entries).toHaveLength(10);
      expect(new Set(entries.map((e) => e.journalSeq)).size).toBe(10);
      expect(entries.every((e) => e.runId === runId)).toBe(true);
    });

    it('refuses bad usage and bad configuration with exit 1', async () => {
      expect((await cli(['frobnicate'])).code).toBe(1);
      expect((await cli(['verify', '--limit', '3'])).code).toBe(1);
      const child = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, [CLI, 'verify'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'mysql://nope' }, stdio: 'ignore' }).on('close', resolve),
      );
      expect(child).toBe(1);
    });
  });

  describe('on a tampered record', () => {
    beforeAll(async () => {
      // A still record: no process appends while rows are changed and restored.
      await stack.stop();
      await h.query('CREATE TABLE journal_snapshot AS SELECT * FROM journal');
    });
    afterEach(async () => {
      await restore();
    });

    const verifyFinds = async (firstBreak: string) => {
      const { code, doc } = await cliJson(['verify']);
      expect(code).toBe(2);
      expect(doc.intact).toBe(false);
      expect(doc.firstBreak).toBe(firstBreak);
      const text = await cli(['verify']);
      expect(text.code).toBe(2);
      expect(text.stdout).toContain(firstBreak);
      return doc;
    };

    it('finds a changed row, and replay of its run does too', async () => {
      await tamper(`UPDATE journal SET entry = replace(entry, '"success":true', '"success":false') WHERE journal_seq = 5 AND entry LIKE '%"success":true%'`);
      await verifyFinds('chain broken at journal_seq 5: hash does not recompute (row changed)');
      const { code, doc } = await cliJson(['replay', runId]);
      expect(code).toBe(2);
      expect(doc.mismatches.map((m: { message: string }) => m.message)).toContain('journal_seq 5: hash does not recompute (row changed)');
    });

    it('finds a deleted row as a gap, and the result it took with it', async () => {
      await tamper('DELETE FROM journal WHERE journal_seq = 5');
      const doc = await verifyFinds('gap: journal_seq 5 missing (row deleted)');
      expect(doc.bijections.findings).toEqual([expect.objectContaining({ check: 'capability_without_result' })]);
    });

    it('finds a consumed capability not bound to its intent\'s receipt (activation, ADR 0050)', async () => {
      const [victim] = await h.query<{ capability_id: string; bound_receipt_id: string }>(
        'SELECT capability_id, bound_receipt_id FROM capabilities WHERE decision_id = $1',
        [decisionIds[2]],
      );
      await h.query(`UPDATE capabilities SET bound_receipt_id = NULL WHERE capability_id = $1`, [victim.capability_id]);
      try {
        const { code, doc } = await cliJson(['verify']);
        expect(code).toBe(2);
        expect(doc.bijections.findings).toEqual([
          { check: 'capability_without_activation', message: `consumed capability ${victim.capability_id} (decision ${decisionIds[2]}) is bound to no receipt` },
        ]);
      } finally {
        await h.query('UPDATE capabilities SET bound_receipt_id = $1 WHERE capability_id = $2', [victim.bound_receipt_id, victim.capability_id]);
      }
    });

    it('finds two reordered rows', async () => {
      // hash is unique, so the swap goes through a placeholder.
      await tamper(
        `CREATE TEMP TABLE pair AS SELECT journal_seq, prev_hash, hash, entry FROM journal WHERE journal_seq IN (4, 5)`,
        `UPDATE journal SET hash = 'placeholder' WHERE journal_seq = 4`,
        `UPDATE journal j SET prev_hash = p.prev_hash, hash = p.hash, entry = p.entry FROM pair p WHERE j.journal_seq = 5 AND p.journal_seq = 4`,
        `UPDATE journal j SET prev_hash = p.prev_hash, hash = p.hash, entry = p.entry FROM pair p WHERE j.journal_seq = 4 AND p.journal_seq = 5`,
        'DROP TABLE pair',
      );
      const doc = await verifyFinds('prev_hash of 4 is not the hash of 3 (reordered or changed)');
      expect(doc.chain.findings.map((f: { journalSeq: string }) => f.journalSeq)).toEqual(expect.arrayContaining(['4', '5']));
    });

    it('finds a truncated tail by the chain head', async () => {
      const last = await lastSeq();
      await tamper(`DELETE FROM journal WHERE journal_seq = ${last}`);
      await verifyFinds(`journal ends at ${last - 1} but head says ${last} (truncated)`);
    });

    it('replay finds an intent whose payload hash was changed', async () => {
      const [victim] = await h.query<{ intent_id: string; payload_sha256: string }>(
        'SELECT intent_id, payload_sha256 FROM intents WHERE decision_id = $1',
        [decisionIds[3]],
      );
      await h.query('UPDATE intents SET payload_sha256 = $1 WHERE intent_id = $2', ['e'.repeat(64), victim.intent_id]);
      try {
        const { code, doc } = await cliJson(['replay', runId]);
        expect(code).toBe(2);
        expect(doc.matches).toBe(false);
        const messages: string[] = doc.mismatches.map((m: { message: string }) => m.message);
        expect(messages).toEqual(
          expect.arrayContaining([
            expect.stringContaining(`intent ${victim.intent_id}: stored intent does not match its own commitment`),
            expect.stringContaining(`intent ${victim.intent_id}: payload_sha256 is not the SHA-256 of the stored payload`),
          ]),
        );
        expect(messages.every((m) => m.includes(victim.intent_id))).toBe(true);
      } finally {
        await h.query('UPDATE intents SET payload_sha256 = $1 WHERE intent_id = $2', [victim.payload_sha256, victim.intent_id]);
      }
    });

    it('after each restore the record verifies again', async () => {
      expect((await cli(['verify'])).code).toBe(0);
      expect((await cli(['replay', runId])).code).toBe(0);
    });
  });
});
