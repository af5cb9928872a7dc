// Pure figures of the benchmark: percentiles, achieved rate, saturation point.

/** Nearest-rank percentile of ascending values; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  const s = [...latenciesMs].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 10) / 10;
  return { count: s.length, p50Ms: r(percentile(s, 50)), p95Ms: r(percentile(s, 95)), p99Ms: r(percentile(s, 99)), maxMs: r(s[s.length - 1] ?? NaN) };
}

/**
 * Decisions per second the system actually completed during a paced step: decisions over the
 * longer of the sending span and the span between the first and the last final journal entry.
 * Under saturation a backlog builds, so final entries spread over more time than the sending did.
 */
export function achievedRate(decisions: number, sendSpanMs: number, firstSeenMs: number, lastSeenMs: number): number {
  const span = Math.max(sendSpanMs, lastSeenMs - firstSeenMs);
  return span > 0 ? (decisions / span) * 1000 : NaN;
}

export interface SweepPoint {
  offered: number;
  achieved: number;
  p99Ms: number;
}

/**
 * The saturation point: the highest offered rate whose step completed at least `minShare` of the
 * offered rate with a p99 under `p99BoundMs`, every lower step passing too (a pass above a failed
 * step is noise, not capacity). Null when even the lowest step fails.
 */
export function saturationPoint(points: readonly SweepPoint[], p99BoundMs: number, minShare = 0.95): number | null {
  let best: number | null = null;
  for (const p of [...points].sort((a, b) => a.offered - b.offered)) {
    if (!(p.achieved >= minShare * p.offered && p.p99Ms <= p99BoundMs)) break;
    best = p.offered;
  }
  return best;
}

/** B over A, rounded to two decimals; null when either side is missing or A is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || a === 0) return null;
  return Math.round((b / a) * 100) / 100;
}

/** The same counts by key, in any order (a key counted 0 equals a key absent). */
export function sameCounts(a: Record<string, number> | undefined, b: Record<string, number> | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

/**
 * The run to report of several runs of one step: the median by `key` (the lower middle one of an
 * even count), so one lucky or unlucky burst does not stand for the build.
 */
export function medianBy<T>(runs: readonly T[], key: (r: T) => number): T {
  if (runs.length === 0) throw new Error('medianBy needs at least one run');
  const sorted = [...runs].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** CPU per decision summed over every process role measured (ms). */
export function summedCpu(msPerDecision: Readonly<Record<string, number | null | undefined>>): number {
  return Object.values(msPerDecision).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
}

/**
 * The builds' order in one run of a step: `first` in even runs, reversed in odd ones, so with
 * several runs each build is measured first as often as the other (a position effect cancels).
 */
export function runOrder(first: readonly number[], run: number): number[] {
  return run % 2 === 0 ? [...first] : [...first].reverse();
}
