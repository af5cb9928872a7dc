// npm run bench: throughput, a latency sweep, CPU per decision by process role, peak memory and two
// baselines, in one session, optionally against another commit's build (A, B, A, B... per step);
// with --scale, then the relay and journal-head scale phase (scale.ts).
// Reports figures; asserts nothing. Run through scripts/bench.sh (it installs, builds, starts the broker).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { waitForQuietMachine } from './quiet';
import { join } from 'node:path';
import { z } from 'zod';
import { envInt, envString, loadConfig } from '@arvis/config';
import { kafkaRoundTrip, pgbenchInserts } from './baselines';
import { latencyChart } from './chart';
import { prepareCommit } from './compare';
import { parseOptions, USAGE, type BenchOptions } from './options';
import { chartSeries, renderMarkdown } from './report';
import type { Baselines, BenchResults, VariantResult } from './results';
import { measureIdleOnly, measureStep, type Step, type StepContext, type StepOutcome } from './run';
import { measureScale } from './scale';
import { variantEnv, type Variant } from './services';
import { medianBy, runOrder, sameCounts, saturationPoint, summedCpu } from './stats';
import { BrokerRequestCounter } from './work';

const ROOT = join(__dirname, '..', '..', '..');
const T0 = Date.now();
/** Progress lines carry the seconds since start, so a run's length can be read off its output. */
const say = (line: string) => console.log(`[bench +${Math.round((Date.now() - T0) / 1000)}s] ${line}`);

const BenchEnv = z.object({
  KAFKA_BROKERS: envString('127.0.0.1:9092'),
  KAFKA_PORT: envInt(9092, 1, 65535),
  KAFKA_DATA_DIR: envString(join(ROOT, '.data', 'kafka')),
  ARVIS_TEST_NAMESPACE: z.preprocess((v) => (v === undefined ? '' : v), z.string().regex(/^[A-Za-z0-9_]*$/)),
  ARVIS_TEST_PORT_OFFSET: envInt(0, 0, 50000),
  PATH: envString('/usr/local/bin:/usr/bin:/bin'),
  HOME: envString('/root'),
  JAVA_HOME: z.string().optional(),
  // What npm needs to reach its registry when --compare must install the other commit's packages
  // (a corporate CA, a proxy).
  NODE_EXTRA_CA_CERTS: z.string().optional(),
  HTTPS_PROXY: z.string().optional(),
  HTTP_PROXY: z.string().optional(),
  NO_PROXY: z.string().optional(),
});
type BenchEnv = z.output<typeof BenchEnv>;

async function baselines(o: BenchOptions, env: BenchEnv, brokers: string[]): Promise<Baselines> {
  if (!o.baselines) return {};
  const out: Baselines = {};
  const error = (e: unknown) => ({ error: (e as Error).message.split('\n')[0] });
  say(`baseline: pgbench, 8 clients, single-row INSERT, ${o.baselineSeconds} s`);
  out.pgbench = await pgbenchInserts(`arvis_${env.ARVIS_TEST_NAMESPACE}bench_pgbench`.toLowerCase(), o.baselineSeconds).catch(error);
  say(`baseline: kafkajs produce-to-consume round trip at 50/s, ${o.baselineSeconds} s`);
  out.kafkaRoundTrip = await kafkaRoundTrip(brokers, `bench-rtt-${Date.now().toString(36)}`, 50, o.baselineSeconds).catch(error);
  say(`baseline: ${JSON.stringify(out)}`);
  return out;
}

function steps(o: BenchOptions): Step[] {
  return [...(o.decisions > 0 ? [{ kind: 'throughput' as const, decisions: o.decisions }] : []), ...o.sweep.map((rate) => ({ kind: 'sweep' as const, rate, seconds: o.stepSeconds }))];
}

async function variants(o: BenchOptions, env: BenchEnv): Promise<Variant[]> {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const current: Variant = { label: o.compare ? 'A working tree' : 'working tree', root: ROOT, commit: `${head}${dirty ? ' (with uncommitted changes)' : ''}` };
  if (!o.compare) return [current];
  const passed = (['JAVA_HOME', 'NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'] as const).flatMap((k) => (env[k] ? [[k, env[k]] as const] : []));
  return [current, await prepareCommit(ROOT, o.compare, say, { PATH: env.PATH, HOME: env.HOME, ...Object.fromEntries(passed) })];
}

/** --idle-only: each build's idle phase alone, in the build order. */
async function measureIdleOnlyAll(o: BenchOptions, ctx: StepContext, builds: { v: Variant; env: Record<string, string> }[]): Promise<VariantResult[]> {
  const order = o.bFirst ? [...builds.keys()].reverse() : [...builds.keys()];
  const results: VariantResult[] = builds.map(({ v }) => ({ label: v.label, commit: v.commit, steps: [], peakRssMb: {}, saturation: null, duplicatesOnJournalTopic: 0 }));
  for (const bi of order) {
    const { v, env } = builds[bi];
    say(`idle only (${v.label})`);
    const idle = await measureIdleOnly(ctx, v, env, bi, o.idleSeconds);
    results[bi].idle = idle;
    say(`  ${v.label}: idle ${JSON.stringify(idle.roles)}; one decision after the window: ${idle.afterIdleMs ?? 'no final entry within 60 s'} ms`);
  }
  return results;
}

/**
 * Unmeasured runs of the throughput step per build before the measured ones: the first run after
 * the broker warm-up came out lowest in four of six comparisons (the same commit against itself:
 * medians 8% apart). Their rates go to the notes; what must never happen counts in them too.
 */
async function settle(o: BenchOptions, ctx: StepContext, builds: { v: Variant; env: Record<string, string> }[], order: number[], step: Step, stepName: string, results: VariantResult[], notes: string[]): Promise<void> {
  const settled = builds.map((): number[] => []);
  for (let run = 0; run < o.settleRuns; run++) {
    for (const bi of runOrder(order, run + 1)) {
      const { v, env } = builds[bi];
      say(`step ${stepName} throughput: settling run ${run + 1}/${o.settleRuns} (${v.label}, not measured)`);
      const out = await measureStep(ctx, v, env, step, -2 - (run * builds.length + bi));
      settled[bi].push(out.result.achieved);
      say(`  ${v.label}: settling run achieved ${out.result.achieved}/s`);
      results[bi].duplicatesOnJournalTopic += out.duplicates;
      if (out.missing > 0) notes.push(`${v.label}, step ${stepName}, settling run: ${out.missing} decisions had no final entry within 600 s`);
    }
  }
  for (const bi of order) notes.push(`${builds[bi].v.label}, step ${stepName}: ${o.settleRuns} settling run(s) before the measured ones, not reported: ${settled[bi].join(', ')}/s.`);
}

/** Runs every step for every build, alternating builds within a step. */
async function measure(o: BenchOptions, ctx: StepContext, builds: { v: Variant; env: Record<string, string> }[], notes: string[]): Promise<VariantResult[]> {
  const results: VariantResult[] = builds.map(({ v }) => ({ label: v.label, commit: v.commit, steps: [], peakRssMb: {}, saturation: null, duplicatesOnJournalTopic: 0 }));
  const all = steps(o);
  const order = o.bFirst ? [...builds.keys()].reverse() : [...builds.keys()];
  if (o.brokerWarmup > 0 && all.length > 0) {
    // A fresh broker JVM is slower at its first heavy load (JIT, page cache); without this, the
    // first build measured paid for it in broker CPU per decision (seen as an order effect).
    const first = builds[order[0]];
    say(`broker warm-up: ${o.brokerWarmup} decisions at once through ${first.v.label} (not measured)`);
    await measureStep(ctx, first.v, first.env, { kind: 'throughput', decisions: o.brokerWarmup }, -1);
    notes.push(`Broker warmed up with ${o.brokerWarmup} decisions through ${first.v.label} before the first step (figures discarded).`);
  }
  for (const [i, step] of all.entries()) {
    // A step may run several times per build, builds alternating; the median run stands: by
    // throughput for the throughput step, by summed CPU per decision for a sweep step (whose
    // achieved rate is its offered one).
    const runs = step.kind === 'throughput' ? o.throughputRuns : o.sweepRuns;
    const outs = builds.map((): StepOutcome[] => []);
    if (step.kind === 'throughput' && o.settleRuns > 0) await settle(o, ctx, builds, order, step, `${i + 1}/${all.length}`, results, notes);
    for (let run = 0; run < runs; run++) {
      for (const bi of runOrder(order, run)) {
        const { v, env } = builds[bi];
        say(`step ${i + 1}/${all.length} ${step.kind === 'throughput' ? `throughput: ${step.decisions} decisions at once` : `sweep: ${step.rate}/s for ${step.seconds} s`} (${v.label})${runs > 1 ? `, run ${run + 1}/${runs}` : ''}`);
        // The idle phase rides on each build's first step (its first run): its apps are warm by then.
        const out = await measureStep(ctx, v, env, step, (i * runs + run) * builds.length + bi, i === 0 && run === 0 ? o.idleSeconds : 0);
        outs[bi].push(out);
        const s = out.result;
        say(`  ${v.label}: achieved ${s.achieved}/s, p50 ${s.latency.p50Ms} ms, p95 ${s.latency.p95Ms} ms, p99 ${s.latency.p99Ms} ms, busy ${s.cpu.busyPercent}%, CPU ms/decision ${JSON.stringify(s.cpu.msPerDecision)}`);
        say(`  ${v.label}: token cache ${s.tokenCache ? `${s.tokenCache.hits} hits, ${s.tokenCache.misses} misses` : 'n/a'}; final entries ${JSON.stringify(s.finals)}`);
        if (out.idle) say(`  ${v.label}: idle ${JSON.stringify(out.idle.roles)}`);
      }
    }
    for (const bi of order) {
      const { v } = builds[bi];
      const out = step.kind === 'throughput' ? medianBy(outs[bi], (x) => x.result.achieved) : medianBy(outs[bi], (x) => summedCpu(x.result.cpu.msPerDecision));
      if (runs > 1 && step.kind === 'throughput') {
        notes.push(`${v.label}, step ${i + 1}: ${runs} runs, throughput ${outs[bi].map((x) => x.result.achieved).join(', ')}/s; the median run (${out.result.achieved}/s) is reported.`);
      } else if (runs > 1) {
        const each = outs[bi].map((x) => `${summedCpu(x.result.cpu.msPerDecision).toFixed(2)} ms (p99 ${x.result.latency.p99Ms} ms)`).join(', ');
        notes.push(`${v.label}, step ${i + 1}: ${runs} runs, CPU per decision summed ${each}; the median run (${summedCpu(out.result.cpu.msPerDecision).toFixed(2)} ms) is reported.`);
      }
      const idle = outs[bi].find((x) => x.idle)?.idle;
      const r = results[bi];
      if (idle) r.idle = idle;
      r.steps.push(out.result);
      // Every run counts for what must never happen and for memory, not only the median one.
      for (const x of outs[bi]) {
        r.duplicatesOnJournalTopic += x.duplicates;
        for (const [app, mb] of Object.entries(x.peakRssMb)) r.peakRssMb[app] = Math.max(r.peakRssMb[app] ?? 0, mb);
        if (x.missing > 0) notes.push(`${v.label}, step ${i + 1}: ${x.missing} decisions had no final entry within 600 s (left out of the figures)`);
        const s = x.result;
        if (!sameCounts(s.finals, s.expectedFinals)) notes.push(`${v.label}, step ${i + 1}: final entries ${JSON.stringify(s.finals)}, expected ${JSON.stringify(s.expectedFinals)}`);
      }
    }
  }
  for (const r of results) r.saturation = saturationPoint(r.steps.filter((s) => s.kind === 'sweep').map((s) => ({ offered: s.offered!, achieved: s.achieved, p99Ms: s.latency.p99Ms })), o.p99BoundMs);
  return results;
}

function write(dir: string, r: BenchResults): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(r, null, 2)}\n`);
  const md = renderMarkdown(r);
  writeFileSync(join(dir, 'results.md'), md);
  writeFileSync(join(dir, 'latency.svg'), latencyChart(chartSeries(r), 'Decision-to-journal latency against offered load'));
  console.log(`\n${md}`);
  say(`results in ${dir} (results.json, results.md, latency.svg)`);
}

/** A usage error stops here with exit 64, before anything starts. */
function options(argv: string[]): BenchOptions {
  try {
    return parseOptions(argv);
  } catch (e) {
    console.error(`[bench] ${(e as Error).message}\n${USAGE}`);
    return process.exit(64);
  }
}

async function main(argv: string[]): Promise<void> {
  const o = options(argv);
  if (o.help) return void console.log(USAGE);
  const env = loadConfig(BenchEnv);
  const started = new Date();
  const brokers = env.KAFKA_BROKERS.split(',');
  const brokerPid = Number(readFileSync(join(env.KAFKA_DATA_DIR, 'run', 'kafka.pid'), 'utf8').trim());
  const dir = o.out ?? join(ROOT, 'bench', 'results', started.toISOString().replace(/[:.]/g, '-'));
  const ctx: StepContext = { brokers, brokerPid, basePort: 3501 + env.ARVIS_TEST_PORT_OFFSET, logDir: join(dir, 'logs'), load: o.load, cpuProf: o.cpuProf, say };
  const jmx = BrokerRequestCounter.open(brokerPid, 3590 + env.ARVIS_TEST_PORT_OFFSET, join(ROOT, '.data', 'bench'));
  if ('counter' in jmx) ctx.brokerRequests = jmx.counter;
  const base = { PATH: env.PATH, HOME: env.HOME, LOG_LEVEL: 'warn', KAFKA_BROKERS: env.KAFKA_BROKERS, DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/arvis_${env.ARVIS_TEST_NAMESPACE}bench`.toLowerCase(), ...o.appEnv };
  const builds = await Promise.all((await variants(o, env)).map(async (v) => ({ v, env: await variantEnv(v, base) })));
  // The builds above load the machine; its load average decays for a minute or two after them.
  const quiet = o.quietWaitS > 0 ? await waitForQuietMachine(o.quietWaitS, say) : undefined;
  const loadAverageAtStart = loadavg();
  const notes = [`Load average ${loadAverageAtStart.map((l) => l.toFixed(2)).join(' ')} at start: figures from a busy machine are not comparable with a quiet one's.`];
  if (quiet && !quiet.quiet) notes.push(`The machine did not get quiet: load average ${quiet.load.toFixed(2)} after waiting ${quiet.waitedS} s (--quiet-wait-s); rerun on a quieter machine.`);
  else if (quiet && quiet.waitedS > 0) notes.push(`Waited ${quiet.waitedS} s after the builds for the load average to fall below 1.0.`);
  if (Object.keys(o.appEnv).length > 0) notes.push(`Every build ran with ${Object.entries(o.appEnv).map(([k, v]) => `${k}=${v}`).join(', ')} (--app-env).`);
  if ('error' in jmx) notes.push(`Broker requests not counted: ${jmx.error}`);
  if (o.idleOnly) notes.push('--idle-only: no steps, no baselines, no broker warm-up; the idle phase follows the 200 warm-up decisions.');
  const baselineFigures = o.idleOnly ? {} : await baselines(o, env, brokers);
  if (o.bFirst && builds.length > 1) notes.push('B was measured before A in every step (--b-first).');
  const variantResults = o.idleOnly ? await measureIdleOnlyAll(o, ctx, builds) : await measure(o, ctx, builds, notes);
  // The scale phase measures the working tree's build only.
  const scale = o.scale.length > 0 && !o.idleOnly ? await measureScale(ctx, builds[0].v, builds[0].env, o.scale) : undefined;
  const finished = new Date();
  const { stepSeconds, p99BoundMs, baselineSeconds, decisions, sweep, compare, load, idleSeconds, idleOnly, brokerWarmup } = o;
  write(dir, {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationS: Math.round((finished.getTime() - started.getTime()) / 1000),
    machine: { cpus: cpus().length, loadAverageAtStart },
    options: { decisions, brokerWarmup, sweep, stepSeconds, p99BoundMs, baselineSeconds, load, idleSeconds, ...(idleOnly ? { idleOnly } : {}), ...(scale ? { scale: o.scale } : {}), ...(compare ? { compare } : {}) },
    notes,
    variants: variantResults,
    baselines: baselineFigures,
    ...(scale ? { scale } : {}),
  });
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: Error) => {
    console.error(`[bench] ${e.stack ?? e.message}`);
    process.exit(1);
  },
);
