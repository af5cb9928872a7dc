// The scale phase (--scale N1,N2,...): the two places where every writer meets one lock, measured
// with N processes at once. (a) The outbox relay: N relay processes (apps/relay) drain a pre-filled
// outbox; one advisory lock lets one publish at a time. (b) The journal head: N processes append
// through appendJournal; the head rows an append needs are locked FOR UPDATE, one chain or N (ADR 0062). Each measurement
// on a fresh bench database (and fresh topics for the relay). Reports figures; asserts nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { topicsFor } from '@arvis/config';
import type { AppenderResult } from './journal-appender';
import { busyPercent, msPerDecision, roleTicks, sampleWindow, type Role, type WindowSample } from './proc';
import type { JournalScaleResult, RelayScaleResult, ScaleResults } from './results';
import { freshDatabase, freshStore, readyBody, spawnApp, stopChild, type Variant } from './services';
import { deleteTopics } from './run';
import { percentile } from './stats';

/** Rows pre-filled in the outbox for each relay measurement. */
export const RELAY_ROWS = 50_000;
/** Seconds each journal measurement appends for. */
export const JOURNAL_SECONDS = 10;
/** Entries per append transaction: one (a lone refusal) and a slice's worth. */
export const JOURNAL_BATCHES = [1, 32] as const;
const RUN_IDS = 64;
/** Management ports of the relays: from the step's base port plus this. */
const RELAY_PORT_DISTANCE = 20;

export interface ScaleContext {
  brokers: string[];
  brokerPid: number;
  basePort: number;
  logDir: string;
  say: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** ms of CPU per 1,000 units, by role; roles whose name starts with `<group>-` are summed into `<group>`. */
function cpuPer1000(a: WindowSample, b: WindowSample, units: number): Record<string, number> {
  const ticks: Record<string, number> = {};
  for (const [name, s] of a.roles) {
    const group = name.replace(/-\d+$/, '');
    ticks[group] = (ticks[group] ?? 0) + roleTicks(s, b.roles.get(name) ?? { procs: [] });
  }
  return Object.fromEntries(Object.entries(ticks).map(([g, t]) => [g, msPerDecision(t, units / 1000)]));
}

/**
 * The outbox filled in one statement, left uncommitted: the relays start on an empty outbox and
 * all see the rows at the same commit. Journal and intents rows 2:1 (a decision writes about two
 * journal entries per intent), keys over 64 run ids, payloads of about 1 KB.
 */
const FILL_SQL = `
  INSERT INTO outbox (topic, message_key, payload)
  SELECT CASE WHEN g % 3 = 0 THEN $2 ELSE $1 END, 'bench-scale-run-' || (g % ${RUN_IDS}),
         json_build_object('seq', g, 'runId', 'bench-scale-run-' || (g % ${RUN_IDS}), 'pad', repeat(md5(g::text), 29))::text
  FROM generate_series(1, $3::int) AS g`;

async function startRelays(ctx: ScaleContext, v: Variant, env: Record<string, string>, n: number): Promise<{ children: ChildProcess[]; ports: number[] }> {
  const ports = Array.from({ length: n }, (_, i) => ctx.basePort + RELAY_PORT_DISTANCE + i);
  const children = ports.map((port, i) => spawnApp(v, 'relay', port, env, ctx.logDir, `scale-relay-${n}x-${i + 1}`));
  const deadline = Date.now() + 60_000;
  for (const [i, port] of ports.entries()) {
    while ((await readyBody(port)) === undefined) {
      if (children[i].exitCode !== null || Date.now() > deadline) {
        await Promise.all(children.map(stopChild));
        throw new Error(`relay ${i + 1} of ${n} did not become ready; see ${ctx.logDir}`);
      }
      await sleep(200);
    }
  }
  return { children, ports };
}

/** Rows the relay on `port` says it published (its /health/ready relay stats); null if it does not say. */
async function publishedBy(port: number): Promise<number | null> {
  const relay = (await readyBody(port))?.relay as { published?: unknown } | null | undefined;
  return typeof relay?.published === 'number' ? relay.published : null;
}

async function waitDrained(pg: Client, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pg.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL');
    if (rows[0].n === '0') return;
    if (Date.now() > deadline) throw new Error(`${rows[0].n} outbox rows still unpublished after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

export async function measureRelays(ctx: ScaleContext, v: Variant, baseEnv: Record<string, string>, n: number, shards = 1): Promise<RelayScaleResult> {
  const prefix = `bench-scale-${Date.now().toString(36)}-r${n}s${shards}.`;
  // A build from before ADR 0089 ignores RELAY_SHARDS (its relays share one lock).
  const env: Record<string, string> = { ...baseEnv, ARVIS_TOPIC_PREFIX: prefix, RELAY_SHARDS: String(shards) };
  const topics = topicsFor(prefix);
  await freshStore(v, env);
  const pg = new Client({ connectionString: env.DATABASE_URL });
  await pg.connect();
  let relays: { children: ChildProcess[]; ports: number[] } | undefined;
  try {
    await pg.query('BEGIN');
    await pg.query(FILL_SQL, [topics.journal, topics.intents, RELAY_ROWS]);
    relays = await startRelays(ctx, v, env, n);
    const roles: Role[] = [...relays.children.map((c, i) => ({ name: `relay-${i + 1}`, pid: c.pid! })), { name: 'postgres', postgres: true }, { name: 'broker', pid: ctx.brokerPid }];
    const a = sampleWindow(roles);
    const t0 = performance.now();
    await pg.query('COMMIT');
    await waitDrained(pg, 300_000);
    const seconds = (performance.now() - t0) / 1000;
    const b = sampleWindow(roles);
    const publishedByProcess = await Promise.all(relays.ports.map(publishedBy));
    const r = (x: number) => Math.round(x * 10) / 10;
    return { processes: n, shards, rows: RELAY_ROWS, seconds: r(seconds), rowsPerS: r(RELAY_ROWS / seconds), publishedByProcess, busyPercent: busyPercent(a.machine, b.machine), cpuMsPer1000: cpuPer1000(a, b, RELAY_ROWS) };
  } finally {
    await pg.end().catch(() => undefined);
    if (relays) await Promise.all(relays.children.map(stopChild));
    await deleteTopics(ctx.brokers, prefix).catch(() => undefined);
  }
}

interface Appender {
  child: ChildProcess;
  /** Lines of the child's stdout, in order. */
  next: () => Promise<string | undefined>;
}

function spawnAppender(v: Variant, env: Record<string, string>, batch: number, seconds: number, log: NodeJS.WritableStream): Appender {
  const script = join(v.root, 'dist', 'scripts', 'bench', 'journal-appender.js');
  const child = spawn(process.execPath, [script, '--batch', String(batch), '--seconds', String(seconds)], { cwd: v.root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.pipe(log, { end: false });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, next: async () => (await lines.next()).value as string | undefined };
}

/** The next line starting with `prefix` (other output, such as log lines, is skipped); throws if the child ends first. */
async function lineStarting(a: Appender, prefix: string): Promise<string> {
  for (let line = await a.next(); line !== undefined; line = await a.next()) if (line.startsWith(prefix)) return line;
  throw new Error(`journal appender ${a.child.pid} ended before printing "${prefix}"`);
}

async function stopAppender(a: Appender): Promise<void> {
  a.child.stdin!.end();
  await stopChildWithin(a.child, 15_000);
}

async function stopChildWithin(c: ChildProcess, ms: number): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  const t = setTimeout(() => void stopChild(c), ms);
  await gone;
  clearTimeout(t);
}

/**
 * Samples, every 50 ms until stopped, how many of the database's client backends wait on a lock
 * (`wait_event_type = 'Lock'`: here, an appender queued behind the `journal_head` row lock).
 */
function sampleLockWaits(url: string): { stop: () => Promise<number[]> } {
  const pg = new Client({ connectionString: url });
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    await pg.connect();
    while (running) {
      const { rows } = await pg.query<{ waiting: number }>(
        `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      samples.push(rows[0].waiting);
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop.catch(() => undefined);
      await pg.end().catch(() => undefined);
      return samples;
    },
  };
}

/** Mean share of the appenders found waiting on a lock, in percent (NaN without samples). */
export function lockWaitPercent(samples: readonly number[], processes: number): number {
  if (samples.length === 0 || processes < 1) return NaN;
  return Math.round((samples.reduce((a, b) => a + b, 0) / samples.length / processes) * 1000) / 10;
}

export async function measureJournal(ctx: ScaleContext, v: Variant, baseEnv: Record<string, string>, n: number, batch: number, shards = 1): Promise<JournalScaleResult> {
  // The fresh database is migrated with this many chains (ADR 0062); the appenders' 64 runs spread over them.
  const env: Record<string, string> = { ...baseEnv, JOURNAL_SHARDS: String(shards), ARVIS_TOPIC_PREFIX: `bench-scale-${Date.now().toString(36)}-j${n}.` };
  await freshDatabase(v, env);
  const log = createWriteStream(join(ctx.logDir, `${v.label}-scale-journal.log`), { flags: 'a' });
  const appenders = Array.from({ length: n }, () => spawnAppender(v, env, batch, JOURNAL_SECONDS, log));
  try {
    await Promise.all(appenders.map((a) => lineStarting(a, 'ready')));
    const roles: Role[] = [...appenders.map((a, i) => ({ name: `appender-${i + 1}`, pid: a.child.pid! })), { name: 'postgres', postgres: true }];
    const w0 = sampleWindow(roles);
    const waits = sampleLockWaits(env.DATABASE_URL);
    for (const a of appenders) a.child.stdin!.write('go\n');
    const results = await Promise.all(appenders.map(async (a) => JSON.parse((await lineStarting(a, 'result ')).slice('result '.length)) as AppenderResult));
    const w1 = sampleWindow(roles);
    const lockWait = lockWaitPercent(await waits.stop(), n);
    return { ...journalFigures(n, batch, results, busyPercent(w0.machine, w1.machine), cpuPer1000(w0, w1, results.reduce((s, r) => s + r.entries, 0))), shards, lockWaitPercent: lockWait };
  } finally {
    await Promise.all(appenders.map(stopAppender));
    log.end();
  }
}

/** The appenders' results as one measurement: rates over the longest appender's window, percentiles over every transaction. */
export function journalFigures(n: number, batch: number, results: AppenderResult[], busy: number, cpuMsPer1000: Record<string, number>): JournalScaleResult {
  const seconds = Math.max(...results.map((r) => r.elapsedMs)) / 1000;
  const entries = results.reduce((s, r) => s + r.entries, 0);
  const transactions = results.reduce((s, r) => s + r.transactions, 0);
  const tx = results.flatMap((r) => r.txMs).sort((a, b) => a - b);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return {
    processes: n,
    batch,
    seconds: r1(seconds),
    entries,
    transactions,
    entriesPerS: r1(entries / seconds),
    transactionsPerS: r1(transactions / seconds),
    p50Ms: r1(percentile(tx, 50)),
    p99Ms: r1(percentile(tx, 99)),
    busyPercent: busy,
    lockWaitPercent: NaN,
    cpuMsPer1000,
  };
}

/** Each process count with one shard, and (for more than one process) with as many shards as processes. */
const withShards = (counts: number[]): [number, number][] => counts.flatMap((n): [number, number][] => (n > 1 ? [[n, 1], [n, n]] : [[n, 1]]));

/** Every relay measurement, then every journal one; a failed measurement is noted and the phase goes on. */
export async function measureScale(ctx: ScaleContext, v: Variant, env: Record<string, string>, counts: number[]): Promise<ScaleResults> {
  mkdirSync(ctx.logDir, { recursive: true });
  const out: ScaleResults = { relay: [], journal: [], errors: [] };
  const attempt = async <T>(what: string, f: () => Promise<T>): Promise<T | undefined> =>
    f().catch((e: Error) => void out.errors.push(`${what}: ${e.message.split('\n')[0]}`));
  // N relays with one shard (one lock), and (for N > 1) with N shards (ADR 0089).
  for (const [n, shards] of withShards(counts)) {
    ctx.say(`scale: outbox relay, ${n} relay process(es) with ${shards} shard(s) draining ${RELAY_ROWS} rows (${v.label})`);
    const r = await attempt(`relay x${n}${shards > 1 ? ` on ${shards} shards` : ''}`, () => measureRelays(ctx, v, env, n, shards));
    if (r) out.relay.push(r);
    if (r) ctx.say(`  ${r.rowsPerS} rows/s in ${r.seconds} s, published per relay ${JSON.stringify(r.publishedByProcess)}, CPU ms/1000 rows ${JSON.stringify(r.cpuMsPer1000)}`);
  }
  for (const batch of JOURNAL_BATCHES) {
    // N appenders on one chain, and (for N > 1) on N chains (ADR 0062).
    for (const [n, shards] of withShards(counts)) {
      ctx.say(`scale: journal append, ${n} appender process(es) on ${shards} chain(s), ${batch} entr${batch === 1 ? 'y' : 'ies'} per transaction, ${JOURNAL_SECONDS} s (${v.label})`);
      const j = await attempt(`journal x${n}${shards > 1 ? ` on ${shards} chains` : ''} batch ${batch}`, () => measureJournal(ctx, v, env, n, batch, shards));
      if (j) out.journal.push(j);
      if (j) ctx.say(`  ${j.entriesPerS} entries/s, ${j.transactionsPerS} tx/s, tx p50 ${j.p50Ms} ms, p99 ${j.p99Ms} ms, waiting on a lock ${j.lockWaitPercent}%, CPU ms/1000 entries ${JSON.stringify(j.cpuMsPer1000)}`);
    }
  }
  for (const e of out.errors) ctx.say(`  scale measurement failed: ${e}`);
  return out;
}
