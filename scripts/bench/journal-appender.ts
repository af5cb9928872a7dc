// One journal appender of the bench's scale phase, a child process of scripts/bench/scale.ts:
// appends entries through the real appendJournal, one transaction at a time, `--batch` entries per
// transaction, for `--seconds`. Talks to its parent on stdio: prints `ready` once warm, waits for
// `go` on stdin, prints one `result {...}` line, then exits when its stdin closes (so the parent
// can read its CPU time while it is still alive).
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { envString, loadConfig, topicsFor } from '@arvis/config';
import { appendJournal, decisionRefusalEntry, type JournalDraft } from '@arvis/journal';
import { Database } from '@arvis/persistence';

const Env = z.object({ DATABASE_URL: z.string().min(1), ARVIS_TOPIC_PREFIX: envString('') });

export interface AppenderResult {
  entries: number;
  transactions: number;
  elapsedMs: number;
  /** Each transaction's time, ms, in order. */
  txMs: number[];
}

/** A valid final entry of a decision refused by policy: what the authorizer writes most often. */
function draft(n: number): JournalDraft {
  const decisionId = `bench-scale-${randomUUID()}`;
  const facts = { decisionId, runId: `bench-scale-run-${n % 64}`, causalId: decisionId, tenant: 'bench', principal: 'bench', tool: 'notes.append' };
  return decisionRefusalEntry('authorization_refusal', facts, { code: 'risk_exceeded', message: 'risk score 0.9 above the tool limit 0.5' });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), strict: true, options: { batch: { type: 'string' }, seconds: { type: 'string' } } });
  const batch = Number(values.batch);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(batch) || batch < 1 || !(seconds > 0)) throw new Error('usage: journal-appender --batch N --seconds S');
  const env = loadConfig(Env);
  const topic = topicsFor(env.ARVIS_TOPIC_PREFIX).journal;
  const prisma = new Database({ url: env.DATABASE_URL, poolSize: 2, txTimeoutMs: 30_000 });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  let n = 0;
  const append = () => prisma.tx((tx) => appendJournal(tx, Array.from({ length: batch }, () => draft(n++)), topic));
  await append(); // warm: connection, prepared statements, JIT
  console.log('ready');
  for (let l = await lines.next(); l.value !== 'go'; l = await lines.next()) if (l.done) return void (await prisma.$disconnect());
  const txMs: number[] = [];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  for (let t = t0; t < end; ) {
    await append();
    const now = performance.now();
    txMs.push(Math.round((now - t) * 100) / 100);
    t = now;
  }
  const result: AppenderResult = { entries: txMs.length * batch, transactions: txMs.length, elapsedMs: Math.round(performance.now() - t0), txMs };
  console.log(`result ${JSON.stringify(result)}`);
  while (!(await lines.next()).done);
  await prisma.$disconnect();
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(`[journal-appender] ${e.stack ?? e.message}`);
    process.exit(1);
  },
);
