// Renders a run's results as a Markdown report (and the chart's series). Pure: results in, text out.
import type { ChartSeries } from './chart';
import { ratio } from './stats';
import { IDLE_SETTLE_MS, ROLES, type BenchResults, type ScaleResults, type StepResult, type VariantResult } from './results';

const fmt = (v: number | null | undefined, digits = 0): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const stepName = (s: StepResult) => (s.offered === null ? `throughput (${s.decisions} at once)` : `${s.offered}/s`);
/** A build without the verified-token cache has no counter: "n/a", not a zero. */
const hitCell = (s: StepResult) => (s.tokenCache ? (s.tokenCache.hitPercent === null ? '–' : s.tokenCache.hitPercent.toFixed(1)) : 'n/a');
const FINAL_NAMES: Record<string, string> = { tool_result: 'results', authorization_refusal: 'refused by policy', admission_refusal: 'refused at admission' };
const finalsCell = (f: Record<string, number> | undefined) =>
  f ? Object.entries(f).map(([k, n]) => `${n} ${FINAL_NAMES[k] ?? k}`).join(', ') || 'none' : '–';
const IDLE_SETTLE_S = IDLE_SETTLE_MS / 1000;
const LOAD_TEXT: Record<string, string> = {
  uniform: 'uniform (notes.append only, one identity token for the whole step)',
  realistic: 'realistic (runs of 10 decisions sharing one fresh identity token; 75% notes.append, 20% mail.send with its consent and egress gates, 5% refused by policy for a risk above the tool maximum)',
};
export const IDLE_ROLES = ['authorizer', 'dispatcher', 'broker'] as const;

function stepsTable(variants: VariantResult[]): string[] {
  const head = ['step', 'build', 'offered/s', 'achieved/s', 'p50 ms', 'p95 ms', 'p99 ms', 'busy %', ...ROLES.map((r) => `${r} ms/dec`), 'token-cache hit %', 'final entries'];
  const out = [row(head), row(head.map(() => '---'))];
  const steps = variants[0]?.steps ?? [];
  steps.forEach((_, i) => {
    for (const v of variants) {
      const s = v.steps[i];
      if (!s) continue;
      const cpu = ROLES.map((r) => fmt(s.cpu.msPerDecision[r], 3));
      out.push(row([stepName(s), v.label, s.offered ?? '–', fmt(s.achieved), fmt(s.latency.p50Ms), fmt(s.latency.p95Ms), fmt(s.latency.p99Ms), fmt(s.cpu.busyPercent, 1), ...cpu, hitCell(s), finalsCell(s.finals)]));
    }
  });
  return out;
}

/** The broker APIs shown by name; the others are summed as "other". */
const NAMED_APIS = ['Produce', 'Fetch', 'OffsetCommit', 'Metadata', 'ListOffsets', 'Heartbeat', 'JoinGroup', 'SyncGroup', 'FindCoordinator'];
/** The broker meters Fetch and again its consumer and follower parts: those are not more requests. */
const PARTS_OF_FETCH = new Set(['FetchConsumer', 'FetchFollower']);

/** Database writes and broker requests per decision, counted: comparable between builds even on a busy machine. */
export function workTable(variants: VariantResult[]): string[] {
  const head = ['step', 'build', 'commits', 'rows inserted', 'rows updated', 'HOT %', 'rows deleted', ...NAMED_APIS.map((a) => `${a} req`), 'other req', 'all req', 'broker KB in', 'broker KB out', 'records in'];
  const out = [row(head), row(head.map(() => '---'))];
  const steps = variants[0]?.steps ?? [];
  let any = false;
  steps.forEach((_, i) => {
    for (const v of variants) {
      const s = v.steps[i];
      const w = s?.work;
      if (!s || !w) continue;
      any = true;
      const d = w.database;
      const r = w.brokerRequests;
      const named = NAMED_APIS.map((api) => (r ? fmt(r[api] ?? 0, 2) : '–'));
      // Meters (bytesIn, ...) start lower-case; requests by API are capitalised.
      const all = r ? Object.entries(r).filter(([k]) => /^[A-Z]/.test(k) && !PARTS_OF_FETCH.has(k)).reduce((x, [, y]) => x + y, 0) : null;
      const other = r ? all! - NAMED_APIS.reduce((x, api) => x + (r[api] ?? 0), 0) : null;
      const kb = (k: string) => (r ? fmt((r[k] ?? 0) / 1024, 2) : '–');
      out.push(row([stepName(s), v.label, fmt(d?.commits, 2), fmt(d?.inserted, 2), fmt(d?.updated, 2), fmt(d?.hotPercent, 0), fmt(d?.deleted, 2), ...named, fmt(other, 2), fmt(all, 2), kb('bytesIn'), kb('bytesOut'), r ? fmt(r.messagesIn ?? 0, 2) : '–']));
    }
  });
  return any ? out : [];
}

/**
 * Rows written per decision by table, in the throughput step (or the first step without one), each
 * build side by side: which table a change moved, since the totals above hide it.
 */
export function tablesTable(variants: VariantResult[]): string[] {
  const pick = (v: VariantResult) => v.steps.find((s) => s.kind === 'throughput') ?? v.steps[0];
  const tables = variants.map((v) => pick(v)?.work?.database?.tables);
  if (tables.every((t) => !t)) return [];
  const names = [...new Set(tables.flatMap((t) => Object.keys(t ?? {})))].sort();
  const head = ['table', ...variants.flatMap((v) => [`${v.label} ins`, `${v.label} upd (HOT)`, `${v.label} del`])];
  const out = [row(head), row(head.map(() => '---'))];
  for (const name of names) {
    const cells = tables.flatMap((t) => {
      const c = t?.[name];
      return c ? [fmt(c.inserted, 2), `${fmt(c.updated, 2)} (${fmt(c.hotUpdated, 2)})`, fmt(c.deleted, 2)] : ['–', '–', '–'];
    });
    out.push(row([name, ...cells]));
  }
  return out;
}

/** The figures a before/after reader looks at first, A and B side by side with B/A. */
export function comparisonRows(a: VariantResult, b: VariantResult): { measure: string; a: number | null; b: number | null }[] {
  const rows: { measure: string; a: number | null; b: number | null }[] = [];
  const tp = (v: VariantResult) => v.steps.find((s) => s.kind === 'throughput');
  if (tp(a)) rows.push({ measure: 'throughput, decisions/s', a: tp(a)!.achieved, b: tp(b)?.achieved ?? null });
  rows.push({ measure: 'saturation point, offered/s', a: a.saturation, b: b.saturation });
  for (const s of a.steps.filter((x) => x.kind === 'sweep')) {
    const other = b.steps.find((x) => x.kind === 'sweep' && x.offered === s.offered);
    rows.push({ measure: `p99 at ${s.offered}/s, ms`, a: s.latency.p99Ms, b: other?.latency.p99Ms ?? null });
  }
  const cpuStep = tp(a) ?? a.steps[a.steps.length - 1];
  const cpuOther = tp(b) ?? b.steps[b.steps.length - 1];
  if (cpuStep) {
    for (const r of ROLES) rows.push({ measure: `${r} CPU ms/decision (${stepName(cpuStep)})`, a: cpuStep.cpu.msPerDecision[r], b: cpuOther?.cpu.msPerDecision[r] ?? null });
  }
  for (const app of Object.keys(a.peakRssMb)) rows.push({ measure: `${app} peak RSS, MB`, a: a.peakRssMb[app], b: b.peakRssMb[app] ?? null });
  if (cpuStep) rows.push({ measure: `token-cache hit % (${stepName(cpuStep)})`, a: cpuStep.tokenCache?.hitPercent ?? null, b: cpuOther?.tokenCache?.hitPercent ?? null });
  for (const r of IDLE_ROLES) {
    if (!a.idle && !b.idle) break;
    rows.push({ measure: `${r} idle CPU, % of a core`, a: a.idle?.roles[r]?.cpuPercentOfCore ?? null, b: b.idle?.roles[r]?.cpuPercentOfCore ?? null });
    rows.push({ measure: `${r} idle wake-ups/s`, a: a.idle?.roles[r]?.wakeupsPerS ?? null, b: b.idle?.roles[r]?.wakeupsPerS ?? null });
  }
  return rows;
}

function comparisonTable(a: VariantResult, b: VariantResult): string[] {
  const out = [row(['measure', a.label, b.label, 'B/A']), row(['---', '---', '---', '---'])];
  const cell = (measure: string, v: number | null) =>
    v === null && measure.startsWith('token-cache') ? 'n/a' : fmt(v, measure.includes('CPU ms') ? 3 : measure.includes('idle CPU') ? 2 : measure.includes('%') || measure.includes('wake-ups') ? 1 : 0);
  for (const r of comparisonRows(a, b)) out.push(row([r.measure, cell(r.measure, r.a), cell(r.measure, r.b), fmt(ratio(r.a, r.b), 2)]));
  return out;
}

/** CPU % of one core and wake-ups/s of each app and the broker with no load, one row per build. */
export function idleLines(variants: VariantResult[]): string[] {
  const measured = variants.filter((v) => v.idle);
  if (measured.length === 0) return [];
  const timed = measured.some((v) => v.idle!.afterIdleMs !== undefined);
  const head = ['build', 'seconds', ...IDLE_ROLES.flatMap((r) => [`${r} CPU % of a core`, `${r} wake-ups/s`]), ...(timed ? ['one decision after, ms'] : [])];
  const rows = measured.map((v) =>
    row([v.label, v.idle!.seconds, ...IDLE_ROLES.flatMap((r) => [fmt(v.idle!.roles[r]?.cpuPercentOfCore, 2), fmt(v.idle!.roles[r]?.wakeupsPerS, 1)]), ...(timed ? [fmt(v.idle!.afterIdleMs)] : [])]),
  );
  return [
    '## Idle',
    '',
    timed
      ? `After the warm-up and ${IDLE_SETTLE_S} s of settling, with the bench's own consumer closed (--idle-only): utime+stime of each process (all threads) over the window as a share of one core, and its threads' voluntary plus involuntary context switches per second; then one decision sent and timed to its final entry.`
      : `After the first step's window and ${IDLE_SETTLE_S} s of settling, with the bench's own producer and consumer closed: utime+stime of each process (all threads) over the window as a share of one core, and its threads' voluntary plus involuntary context switches per second.`,
    '',
    row(head),
    row(head.map(() => '---')),
    ...rows,
    '',
  ];
}

function baselineLines(r: BenchResults): string[] {
  const out: string[] = [];
  const pg = r.baselines.pgbench;
  if (pg) out.push('error' in pg ? `- pgbench: failed (${pg.error})` : `- pgbench, single-row INSERT transactions, ${pg.clients} clients, ${pg.seconds} s: **${fmt(pg.tps)} tps**`);
  const k = r.baselines.kafkaRoundTrip;
  if (k) out.push('error' in k ? `- kafkajs round trip: failed (${k.error})` : `- kafkajs produce-to-consume round trip at ${k.rate}/s (${k.count} messages, acks=all): p50 ${fmt(k.p50Ms, 1)} ms, p99 ${fmt(k.p99Ms, 1)} ms`);
  return out.length ? out : ['- skipped (--no-baselines)'];
}

/** Each rate over the rate of the fewest processes measured with the same batch: 1.00 is no gain from more processes. */
export function scaleGain<T extends { processes: number }>(rows: T[], rate: (t: T) => number, sameGroup: (a: T, b: T) => boolean = () => true): (number | null)[] {
  return rows.map((t) => {
    const group = rows.filter((o) => sameGroup(o, t));
    const first = group.reduce((m, o) => (o.processes < m.processes ? o : m), group[0]);
    return ratio(rate(first), rate(t));
  });
}

const cpuCells = (cpu: Record<string, number>, roles: string[]) => roles.map((r) => fmt(cpu[r], 1));

/** The scale phase's two tables: relay processes draining the outbox, appender processes on the journal head. */
export function scaleLines(s: ScaleResults): string[] {
  const relayHead = ['relays', 'shards', 'rows', 'seconds', 'rows/s', 'gain', 'published per relay', 'busy %', 'relay CPU ms/1k rows', 'postgres CPU ms/1k rows', 'broker CPU ms/1k rows'];
  const relayGain = scaleGain(s.relay, (r) => r.rowsPerS);
  const relay = s.relay.map((r, i) =>
    row([r.processes, r.shards ?? 1, r.rows, fmt(r.seconds, 1), fmt(r.rowsPerS), fmt(relayGain[i], 2), r.publishedByProcess.map((p) => fmt(p)).join(' / '), fmt(r.busyPercent, 1), ...cpuCells(r.cpuMsPer1000, ['relay', 'postgres', 'broker'])]),
  );
  const journalHead = ['appenders', 'chains', 'entries/tx', 'entries/s', 'tx/s', 'gain', 'tx p50 ms', 'tx p99 ms', 'waiting on the lock %', 'busy %', 'appender CPU ms/1k entries', 'postgres CPU ms/1k entries'];
  // Gain over the fewest appenders of the same batch size: one appender on one chain.
  const journalGain = scaleGain(s.journal, (j) => j.entriesPerS, (a, b) => a.batch === b.batch);
  const journal = s.journal.map((j, i) =>
    row([j.processes, j.shards ?? 1, j.batch, fmt(j.entriesPerS), fmt(j.transactionsPerS), fmt(journalGain[i], 2), fmt(j.p50Ms, 1), fmt(j.p99Ms, 1), fmt(j.lockWaitPercent, 1), fmt(j.busyPercent, 1), ...cpuCells(j.cpuMsPer1000, ['appender', 'postgres'])]),
  );
  return [
    '## Scale: the outbox relay and the journal head with N processes',
    '',
    ...s.errors.map((e) => `> failed: ${e}`),
    ...(s.errors.length ? [''] : []),
    'Relay: N relay processes (apps/relay) drain a pre-filled outbox (one commit, ~1 KB payloads, journal and intents topics, 64 keys); seconds from that commit until no row is unpublished. Shards: RELAY_SHARDS (1, or N: ADR 0089). Gain is rows/s over the fewest relays measured.',
    '',
    row(relayHead),
    row(relayHead.map(() => '---')),
    ...relay,
    '',
    'Journal: N processes append through appendJournal, one transaction at a time each, to the database\'s chains (1, or N: ADR 0062; each transaction\'s entries are of 64 runs, so a batch of 32 touches most chains); gain is entries/s over the fewest appenders with the same entries per transaction; waiting on the lock is the mean share of appenders found waiting on a row lock (pg_stat_activity, every 50 ms).',
    '',
    row(journalHead),
    row(journalHead.map(() => '---')),
    ...journal,
    '',
  ];
}

export function renderMarkdown(r: BenchResults): string {
  const o = r.options;
  if (o.idleOnly) return idleOnlyMarkdown(r);
  const lines = [
    `# Benchmark ${r.startedAt}`,
    '',
    `${r.machine.cpus} CPUs, load average at start ${r.machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(' ')}; ${fmt(r.durationS)} s in all.`,
    `Throughput step: ${o.decisions} decisions; sweep ${o.sweep.join(', ')}/s, ${o.stepSeconds} s each; saturation bound p99 ≤ ${o.p99BoundMs} ms and achieved ≥ 95% of offered.`,
    ...(o.load ? [`Load: ${LOAD_TEXT[o.load] ?? o.load}.`] : []),
    ...r.notes.map((n) => `> ${n}`),
    '',
    '## Steps',
    '',
    ...stepsTable(r.variants),
    '',
    'CPU is ms of CPU time per decision over the step (relay: inside the authorizer and the dispatcher); busy % is the whole machine. Token-cache hit % is the authorizer\'s verified-token cache over the window (n/a: a build without it); final entries are read from the journal after the window.',
    '',
  ];
  const work = workTable(r.variants);
  if (work.length > 0) {
    lines.push(
      '## Work per decision',
      '',
      ...work,
      '',
      'Counted, per decision completed in the window: the step database\'s commits and row writes (pg_stat_database; HOT % of updates from pg_stat_user_tables; PostgreSQL publishes a backend\'s counts at most once a second, so up to about a second of work at either edge is misplaced) and the broker\'s requests by API, bytes in and out and records in (its JMX metrics; the bench\'s own producer and journal consumer are included, the same load for every build).',
      '',
    );
    const tables = tablesTable(r.variants);
    if (tables.length > 0) lines.push('Rows per decision by table (first step: the throughput step when there is one):', '', ...tables, '');
  }
  lines.push('## Summary', '');
  for (const v of r.variants) {
    const rss = Object.entries(v.peakRssMb).map(([app, mb]) => `${app} ${fmt(mb)} MB`).join(', ');
    lines.push(`- ${v.label} (${v.commit.slice(0, 12)}): saturation point ${v.saturation === null ? 'below the lowest step' : `${v.saturation}/s`}; peak RSS ${rss}; duplicate journal copies seen ${v.duplicatesOnJournalTopic}`);
  }
  lines.push('', ...idleLines(r.variants));
  if (r.variants.length === 2) lines.push('', '## A against B', '', ...comparisonTable(r.variants[0], r.variants[1]));
  lines.push('', '## Baselines (same broker, same PostgreSQL)', '', ...baselineLines(r), '');
  if (r.scale) lines.push(...scaleLines(r.scale));
  lines.push('![latency against offered load](latency.svg)', '');
  return lines.join('\n');
}

/** --idle-only: no steps, summary or baselines to show. */
function idleOnlyMarkdown(r: BenchResults): string {
  const head = [`# Benchmark ${r.startedAt}, idle only`, '', `${r.machine.cpus} CPUs, load average at start ${r.machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(' ')}; ${fmt(r.durationS)} s in all.`];
  const builds = r.variants.map((v) => `- ${v.label}: ${v.commit.slice(0, 12)}`);
  return [...head, ...r.notes.map((n) => `> ${n}`), '', ...builds, '', ...idleLines(r.variants)].join('\n');
}

export function chartSeries(r: BenchResults): ChartSeries[] {
  return r.variants.map((v) => ({
    label: v.label,
    points: v.steps.filter((s) => s.kind === 'sweep').map((s) => ({ offered: s.offered!, p50Ms: s.latency.p50Ms, p95Ms: s.latency.p95Ms, p99Ms: s.latency.p99Ms })),
  }));
}
