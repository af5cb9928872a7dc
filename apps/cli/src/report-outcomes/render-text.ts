import { columns } from '../output';
import { boundariesSeen, LATENCY_DEFINITION, type BoundaryCounts, type OutcomeReport } from './aggregate-outcomes';

const ms = (v: number | null) => (v === null ? '-' : `${Math.round(v)} ms`);

/** The report as terminal tables: totals, then by tool, tenant, reason code and effect boundary. */
export function renderReportText(r: OutcomeReport): string[] {
  const seen = boundariesSeen(r);
  const perBoundary = (c: BoundaryCounts) => seen.map((b) => String(c[b]));
  const progress = Object.entries(r.progress).map(([kind, n]) => `${n} ${kind}`);
  const lines = [
    `outcomes from ${r.window.since} to ${r.window.until}: ${r.outcomes} final entries` + (progress.length ? ` (and ${progress.join(', ')})` : ''),
  ];
  const table = (title: string, rows: string[][]) => {
    lines.push('', title, ...columns(rows).map((l) => `  ${l}`));
  };
  table('by tool', [
    ['TOOL', 'OUTCOMES', ...seen, 'LATENCY p50', 'p95', 'TOOL TIME p50', 'p95'],
    ...r.byTool.map((t) => [t.tool, String(t.outcomes), ...perBoundary(t.byBoundary), ms(t.latency.p50Ms), ms(t.latency.p95Ms), ms(t.toolTime.p50Ms), ms(t.toolTime.p95Ms)]),
  ]);
  table('by tenant', [['TENANT', 'OUTCOMES', ...seen], ...r.byTenant.map((t) => [t.tenant, String(t.outcomes), ...perBoundary(t.byBoundary)])]);
  table('by reason code', [
    ['REASON', 'OUTCOMES', 'KINDS'],
    ...r.byReason.map((x) => [x.reasonCode, String(x.outcomes), Object.entries(x.byKind).map(([k, n]) => `${k}=${n}`).join(' ')]),
  ]);
  table('by effect boundary', [['BOUNDARY', 'OUTCOMES'], ...Object.entries(r.byBoundary).map(([b, n]) => [b, String(n)])]);
  lines.push('', LATENCY_DEFINITION);
  return lines;
}
