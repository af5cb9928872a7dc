import { parseArgs } from 'node:util';
import type { LoadKind } from './load';

export interface BenchOptions {
  /** Decisions in the throughput step (0 skips it). */
  decisions: number;
  /** Times the throughput step runs per build (alternating builds); the median run by throughput is reported. */
  throughputRuns: number;
  /** Unmeasured throughput runs per build before the measured ones (default 1 with --compare, else 0). */
  settleRuns: number;
  /** Runs of each sweep step per build; the median run by CPU per decision stands. */
  sweepRuns: number;
  /** Decisions sent through the first build before any measured step, figures discarded (0 skips it). */
  brokerWarmup: number;
  /** Offered loads of the latency sweep, decisions/s, ascending. */
  sweep: number[];
  stepSeconds: number;
  /** The p99 a sweep step must stay under to count below saturation. */
  p99BoundMs: number;
  baselines: boolean;
  baselineSeconds: number;
  /** realistic: runs of 10 decisions per token, 75/20/5 notes/mails/refused; uniform: the old load, notes only, one token. */
  load: LoadKind;
  /** Seconds of the idle phase after the first step (0 skips it). */
  idleSeconds: number;
  /** Only the idle phase: the apps started and warmed up, then idle for idleSeconds, then one decision timed (no steps, baselines or broker warm-up). */
  idleOnly: boolean;
  /** Process counts of the scale phase (relays, then journal appenders), ascending; empty: no scale phase. */
  scale: number[];
  /** A commit to measure beside the working tree's build, alternately. */
  compare?: string;
  /** Measure the compared commit (B) first in every step instead of the working tree (A). */
  bFirst: boolean;
  out?: string;
  /** Write a V8 CPU profile of each app per step into its logs folder (profiling costs CPU: figures are not comparable). */
  cpuProf: boolean;
  /** Environment set for every build's apps and scripts (--app-env NAME=VALUE): a setting tried on both builds alike. */
  appEnv: Record<string, string>;
  /** Longest wait, after the builds, for the 1-minute load average to fall below 1.0 before measuring (0: no wait). */
  quietWaitS: number;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --decisions N          decisions in the throughput step, sent at once (default 20000; 0 skips it)
  --throughput-runs N    run the throughput step N times per build, builds alternating, and report the median
                         run by throughput, all runs listed in the notes (default 1; one burst of 20,000 varies
                         by a third between runs on a 2-core machine)
  --sweep-runs N         run each sweep step N times per build, builds alternating, and report the median run
                         by CPU per decision summed over every process, all runs listed in the notes (default
                         1; at 50/s that sum varies by a fifth between runs of one build). With several runs
                         (of either kind), the build measured first alternates from run to run
  --settle-runs N        before the throughput step's measured runs, run it N times per build unmeasured
                         (their rates listed in the notes): default 1 with --compare, else 0. Without it the
                         first measured run, the first after the broker warm-up, came out lowest in four of
                         six comparisons, medians of one commit against itself 8% apart (docs/benchmark.md)
  --broker-warmup N      decisions sent at once through the first build before any measured step, figures
                         discarded, so no build's first step is a fresh broker JVM's first heavy load
                         (default 5000; 0 skips it)
  --sweep R1,R2,...      offered loads of the latency sweep, decisions/s (default 50,200,500,1000)
  --step-seconds S       seconds of load per sweep step (default 20)
  --p99-bound-ms MS      p99 bound of the saturation point (default 1000)
  --baseline-seconds S   seconds of pgbench and of the kafkajs round trip (default 10)
  --no-baselines         skip the pgbench and kafkajs baselines
  --load KIND            realistic (default): runs of 10 decisions sharing a fresh token, 75% notes.append,
                         20% mail.send, 5% refused by policy; uniform: the old load (notes.append, one token)
  --idle-seconds S       idle phase after the first step: CPU and wake-ups of each app and the broker with
                         no load, for S seconds (default 20; 0 skips it)
  --idle-only            only the idle phase, cheap to rerun: per build, fresh store, apps started, the
                         warm-up, --idle-seconds S idle, then one decision timed end to end (no steps,
                         no baselines, no broker warm-up)
  --scale N1,N2,...      also run the scale phase: outbox relay publish rate with N relay processes and
                         journal append rate with N appender processes, for each N (default off; e.g. 1,2,4)
  --compare COMMIT       also build COMMIT (in .data/bench/<sha>) and measure it alternately with the working tree
  --b-first              with --compare, measure B before A in every step (A goes first by default), to
                         tell a difference of the builds from one of the measuring position
  --out DIR              results folder (default bench/results/<UTC timestamp>)
  --cpu-prof             write a V8 CPU profile of each app per step (logs/<step>/*.cpuprofile); slows the apps
  --app-env NAME=VALUE   set NAME for every build's apps and scripts (migrations, topics) alike, e.g.
                         --app-env KAFKA_MAX_BATCH_BYTES=3145728; repeatable. Variables exported in the
                         shell do not reach the apps: each build runs with the bench's own environment
  --quiet-wait-s S       after the builds, wait up to S seconds for the 1-minute load average to fall below
                         1.0 before measuring (default 180; 0 skips the wait); a start above it is noted
  --help                 this text`;

const int = (name: string, raw: string | undefined, def: number, min: number, max: number): number => {
  const v = raw === undefined ? def : Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`--${name} must be an integer in ${min}..${max} (got ${raw})`);
  return v;
};

/** A comma list of integers in min..max, none twice. */
const list = (name: string, raw: string, min: number, max: number): number[] => {
  const v = raw
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((s) => int(name, s.trim(), 0, min, max));
  if (new Set(v).size !== v.length) throw new Error(`--${name} lists a value twice`);
  return v;
};

/** NAME=VALUE pairs, NAME an environment variable's name, none twice. */
function appEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!m) throw new Error(`--app-env must be NAME=VALUE (got ${pair})`);
    if (m[1] in env) throw new Error(`--app-env sets ${m[1]} twice`);
    env[m[1]] = m[2];
  }
  return env;
}

/** The command line, checked: a bad value is a usage error, never a default in disguise. */
export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      decisions: { type: 'string' },
      'broker-warmup': { type: 'string' },
      'throughput-runs': { type: 'string' },
      'sweep-runs': { type: 'string' },
      'settle-runs': { type: 'string' },
      sweep: { type: 'string' },
      'step-seconds': { type: 'string' },
      'p99-bound-ms': { type: 'string' },
      'baseline-seconds': { type: 'string' },
      'no-baselines': { type: 'boolean', default: false },
      load: { type: 'string' },
      'idle-seconds': { type: 'string' },
      'idle-only': { type: 'boolean', default: false },
      scale: { type: 'string' },
      compare: { type: 'string' },
      'b-first': { type: 'boolean', default: false },
      out: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'quiet-wait-s': { type: 'string' },
      'app-env': { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
  });
  const sweep = list('sweep', values.sweep ?? '50,200,500,1000', 1, 100_000);
  const scale = list('scale', values.scale ?? '', 1, 16);
  if (values.scale !== undefined && scale.length === 0) throw new Error('--scale needs at least one process count');
  const load = values.load ?? 'realistic';
  const idleOnly = values['idle-only'] === true;
  if (load !== 'realistic' && load !== 'uniform') throw new Error(`--load must be realistic or uniform (got ${load})`);
  return {
    decisions: int('decisions', values.decisions, 20_000, 0, 10_000_000),
    throughputRuns: int('throughput-runs', values['throughput-runs'], 1, 1, 25),
    sweepRuns: int('sweep-runs', values['sweep-runs'], 1, 1, 25),
    settleRuns: int('settle-runs', values['settle-runs'], values.compare ? 1 : 0, 0, 10),
    brokerWarmup: int('broker-warmup', values['broker-warmup'], 5_000, 0, 1_000_000),
    sweep: sweep.sort((a, b) => a - b),
    scale: scale.sort((a, b) => a - b),
    stepSeconds: int('step-seconds', values['step-seconds'], 20, 1, 3600),
    p99BoundMs: int('p99-bound-ms', values['p99-bound-ms'], 1000, 1, 3_600_000),
    baselines: values['no-baselines'] !== true,
    baselineSeconds: int('baseline-seconds', values['baseline-seconds'], 10, 1, 3600),
    load,
    idleSeconds: int('idle-seconds', values['idle-seconds'], 20, idleOnly ? 1 : 0, 3600),
    idleOnly,
    ...(values.compare ? { compare: values.compare } : {}),
    ...(values.out ? { out: values.out } : {}),
    cpuProf: values['cpu-prof'] === true,
    appEnv: appEnv(values['app-env'] ?? []),
    quietWaitS: int('quiet-wait-s', values['quiet-wait-s'], 180, 0, 3600),
    bFirst: values['b-first'] === true,
    help: values.help === true,
  };
}
