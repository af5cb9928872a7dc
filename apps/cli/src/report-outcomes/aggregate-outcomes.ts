import { EffectBoundary, FINAL_JOURNAL_KINDS, type JournalKind } from '@arvis/contracts';
import { bucketStarts, type ReportWindow } from './report-window';

/** One group of journal entries in the window, as the report query counts them. */
export interface OutcomeGroupRow {
  tool: string;
  tenant: string;
  kind: string;
  effect_boundary: string;
  reason_code: string | null;
  /** Start of the entry's time bucket, epoch milliseconds (as text: a bigint in SQL). */
  bucket_ms: string;
  entries: number;
}

/** Latency percentiles of one tool's final entries, as the report query computes them. */
export interface ToolLatencyRow {
  tool: string;
  samples: number;
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number | null;
  tool_samples: number;
  tool_p50_ms: number | null;
  tool_p95_ms: number | null;
}

export type BoundaryCounts = Record<EffectBoundary, number>;
export interface Percentiles {
  samples: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface OutcomeReport {
  window: { since: string; until: string; bucketMs: number };
  /** Final entries (one per decision) recorded in the window. */
  outcomes: number;
  /** Non-final entries in the window (confirmation_pending, audit_incomplete): progress, not outcomes. */
  progress: Record<string, number>;
  byBoundary: BoundaryCounts;
  byTool: { tool: string; outcomes: number; byBoundary: BoundaryCounts; latency: Percentiles & { maxMs: number | null }; toolTime: Percentiles }[];
  byTenant: { tenant: string; outcomes: number; byBoundary: BoundaryCounts }[];
  byReason: { reasonCode: string; outcomes: number; byKind: Record<string, number> }[];
  timeline: { start: string; outcomes: number; byBoundary: BoundaryCounts }[];
}

export const BOUNDARIES: readonly EffectBoundary[] = EffectBoundary.options;

/** What "latency" means in this report; shown with every rendering so no reader has to guess. */
export const LATENCY_DEFINITION =
  'latency: from the decision inbox row (received_at) to the final journal entry (recorded_at), both on the database clock; ' +
  'refusals decided in the receiving transaction count 0 ms. tool time: the tool body as the dispatcher timed it (latencyMs of the result).';

export const zeroCounts = (): BoundaryCounts => Object.fromEntries(BOUNDARIES.map((b) => [b, 0])) as BoundaryCounts;

const isFinal = (kind: string) => FINAL_JOURNAL_KINDS.has(kind as JournalKind);

/** Adds `n` to the row keyed `key`, creating it with `make` on first sight. */
function tally<T extends { outcomes: number }>(into: Map<string, T>, key: string, make: () => T, n: number): T {
  let row = into.get(key);
  if (!row) into.set(key, (row = make()));
  row.outcomes += n;
  return row;
}

// Largest first, then by name: the busiest tool, tenant or reason leads each table.
const byVolume = <T extends { outcomes: number }>(name: (t: T) => string) => (a: T, b: T) => b.outcomes - a.outcomes || name(a).localeCompare(name(b));

/** Folds the grouped counts and per-tool percentiles into the report every rendering reads. */
export function aggregateOutcomes(window: ReportWindow, groups: readonly OutcomeGroupRow[], latency: readonly ToolLatencyRow[]): OutcomeReport {
  const tools = new Map<string, OutcomeReport['byTool'][number]>();
  const tenants = new Map<string, OutcomeReport['byTenant'][number]>();
  const reasons = new Map<string, OutcomeReport['byReason'][number]>();
  const timeline = new Map(bucketStarts(window).map((ms) => [ms, { start: new Date(ms).toISOString(), outcomes: 0, byBoundary: zeroCounts() }]));
  const progress: Record<string, number> = {};
  const byBoundary = zeroCounts();
  let outcomes = 0;
  for (const g of groups) {
    if (!isFinal(g.kind)) {
      progress[g.kind] = (progress[g.kind] ?? 0) + g.entries;
      continue;
    }
    const boundary = g.effect_boundary as EffectBoundary;
    outcomes += g.entries;
    byBoundary[boundary] += g.entries;
    tally(tools, g.tool, () => ({ tool: g.tool, outcomes: 0, byBoundary: zeroCounts(), latency: noLatency(), toolTime: noLatency() }), g.entries).byBoundary[boundary] += g.entries;
    tally(tenants, g.tenant, () => ({ tenant: g.tenant, outcomes: 0, byBoundary: zeroCounts() }), g.entries).byBoundary[boundary] += g.entries;
    if (g.reason_code !== null) {
      const r = tally(reasons, g.reason_code, () => ({ reasonCode: g.reason_code as string, outcomes: 0, byKind: {} as Record<string, number> }), g.entries);
      r.byKind[g.kind] = (r.byKind[g.kind] ?? 0) + g.entries;
    }
    const bucket = timeline.get(Number(g.bucket_ms));
    if (!bucket) throw new Error(`bucket ${g.bucket_ms} lies outside the report window`);
    bucket.outcomes += g.entries;
    bucket.byBoundary[boundary] += g.entries;
  }
  for (const l of latency) {
    const t = tools.get(l.tool);
    if (!t) continue;
    t.latency = { samples: l.samples, p50Ms: l.p50_ms, p95Ms: l.p95_ms, maxMs: l.max_ms };
    t.toolTime = { samples: l.tool_samples, p50Ms: l.tool_p50_ms, p95Ms: l.tool_p95_ms };
  }
  return {
    window: { since: window.since.toISOString(), until: window.until.toISOString(), bucketMs: window.bucketMs },
    outcomes,
    progress,
    byBoundary,
    byTool: [...tools.values()].sort(byVolume((t) => t.tool)),
    byTenant: [...tenants.values()].sort(byVolume((t) => t.tenant)),
    byReason: [...reasons.values()].sort(byVolume((r) => r.reasonCode)),
    timeline: [...timeline.values()],
  };
}

function noLatency(): Percentiles & { maxMs: number | null } {
  return { samples: 0, p50Ms: null, p95Ms: null, maxMs: null };
}

/** Boundaries with at least one outcome, in the contract's order: the columns worth showing. */
export function boundariesSeen(report: OutcomeReport): EffectBoundary[] {
  return BOUNDARIES.filter((b) => report.byBoundary[b] > 0);
}
