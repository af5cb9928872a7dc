import { chartSeries, comparisonRows, idleLines, renderMarkdown, scaleGain, scaleLines, tablesTable, workTable } from './report';
import type { BenchResults, JournalScaleResult, RelayScaleResult, ScaleResults, StepResult, VariantResult } from './results';

const cpu = (k: number) => ({ busyPercent: 80, msPerDecision: { authorizer: 1 * k, dispatcher: 2 * k, broker: 0.5, postgres: 1.5, producer: 0.25 } });
const step = (offered: number | null, p99: number, k = 1): StepResult => ({
  kind: offered === null ? 'throughput' : 'sweep',
  offered,
  decisions: 1000,
  windowMs: 2000,
  achieved: offered ?? 500 * k,
  latency: { count: 1000, p50Ms: p99 / 4, p95Ms: p99 / 2, p99Ms: p99, maxMs: p99 + 1 },
  cpu: cpu(k),
  tokenCache: k === 1 ? { hits: 900, misses: 100, hitPercent: 90 } : null,
  finals: { authorization_refusal: 50, tool_result: 950 },
  expectedFinals: { tool_result: 950, authorization_refusal: 50 },
});
const variant = (label: string, k: number): VariantResult => ({
  label,
  commit: `${label}0123456789abcdef`,
  steps: [step(null, 3000, k), step(50, 80 * k, k), step(200, 400 * k, k)],
  peakRssMb: { authorizer: 300 * k, dispatcher: 250 },
  saturation: 200,
  duplicatesOnJournalTopic: 0,
  idle: { seconds: 20, roles: { authorizer: { cpuPercentOfCore: 0.4 * k, wakeupsPerS: 55 * k }, dispatcher: { cpuPercentOfCore: 0.3, wakeupsPerS: 40 }, broker: null } },
});
const results = (variants: VariantResult[]): BenchResults => ({
  startedAt: '2026-11-30T18:00:00Z',
  finishedAt: '2026-11-30T18:05:00Z',
  durationS: 300,
  machine: { cpus: 2, loadAverageAtStart: [1, 2, 3] },
  options: { decisions: 1000, sweep: [50, 200], stepSeconds: 10, p99BoundMs: 1000, baselineSeconds: 5 },
  notes: ['shared machine'],
  variants,
  baselines: { pgbench: { clients: 8, seconds: 5, tps: 1234.5 }, kafkaRoundTrip: { error: 'broker down' } },
});

describe('bench report', () => {
  it('renders one row per step with latency, busy share and CPU per role', () => {
    const md = renderMarkdown(results([variant('current', 1)]));
    expect(md).toContain('| throughput (1000 at once) | current | – | 500 | 750 | 1500 | 3000 | 80.0 | 1.000 | 2.000 | 0.500 | 1.500 | 0.250 | 90.0 | 50 refused by policy, 950 results |');
    expect(md).toContain('| 50/s | current | 50 | 50 | 20 | 40 | 80 |');
    expect(md).toContain('saturation point 200/s');
    expect(md).toContain('**1235 tps**');
    expect(md).toContain('kafkajs round trip: failed (broker down)');
    expect(md).toContain('> shared machine');
    expect(md).not.toContain('A against B');
  });

  it('puts A and B side by side, alternating rows, with a ratio table', () => {
    const md = renderMarkdown(results([variant('A', 1), variant('B', 2)]));
    const rows = md.split('\n').filter((l) => l.startsWith('| 200/s'));
    expect(rows.map((l) => l.split(' | ')[1])).toEqual(['A', 'B']);
    expect(md).toContain('| p99 at 200/s, ms | 400 | 800 | 2.00 |');
    expect(md).toContain('| authorizer peak RSS, MB | 300 | 600 | 2.00 |');
    expect(md).toContain('| throughput, decisions/s | 500 | 1000 | 2.00 |');
  });

  it('puts each build\'s rows by table side by side for the throughput step, a table one build lacks as dashes', () => {
    const counts = (tables: Record<string, { inserted: number; updated: number; hotUpdated: number; deleted: number }>) => ({
      database: { commits: 1, inserted: 1, updated: 1, hotUpdated: 0, deleted: 1, hotPercent: 0, tables },
      brokerRequests: null,
    });
    const a = variant('A', 1);
    const b = variant('B', 2);
    a.steps[0] = { ...a.steps[0], work: counts({ outbox: { inserted: 3, updated: 0, hotUpdated: 0, deleted: 3 } }) };
    b.steps[0] = { ...b.steps[0], work: counts({ outbox: { inserted: 4, updated: 0, hotUpdated: 0, deleted: 4 }, effects: { inserted: 1, updated: 2, hotUpdated: 1, deleted: 0 } }) };
    const out = tablesTable([a, b]);
    expect(out[0]).toBe('| table | A ins | A upd (HOT) | A del | B ins | B upd (HOT) | B del |');
    expect(out.slice(2)).toEqual(['| effects | – | – | – | 1.00 | 2.00 (1.00) | 0.00 |', '| outbox | 3.00 | 0.00 (0.00) | 3.00 | 4.00 | 0.00 (0.00) | 4.00 |']);
    expect(renderMarkdown(results([a, b]))).toContain('Rows per decision by table');
  });

  it('counts the broker\'s FetchConsumer and FetchFollower as the split of Fetch they are, not as other requests', () => {
    // The broker's JMX meters Fetch and, again, its consumer and follower parts: summed, a 50/s
    // step showed 1.11 "other" requests per decision that were its consumer fetches twice.
    const a = variant('A', 1);
    a.steps[0] = {
      ...a.steps[0],
      work: {
        database: { commits: 1, inserted: 1, updated: 1, hotUpdated: 0, deleted: 1, hotPercent: 0, tables: {} },
        brokerRequests: { Fetch: 1.1, FetchConsumer: 1.1, FetchFollower: 0.5, Produce: 1, BrokerHeartbeat: 0.01, bytesIn: 2048 },
      },
    };
    const cells = workTable([a])[2].split(' | ');
    const head = workTable([a])[0].split(' | ');
    expect(cells[head.indexOf('Fetch req')]).toBe('1.10');
    expect(cells[head.indexOf('other req')]).toBe('0.01');
    expect(cells[head.indexOf('all req')]).toBe('2.11');
  });

  it('compares the CPU of the throughput step', () => {
    const rows = comparisonRows(variant('A', 1), variant('B', 2));
    expect(rows.find((r) => r.measure.startsWith('dispatcher CPU'))).toEqual({ measure: 'dispatcher CPU ms/decision (throughput (1000 at once))', a: 2, b: 4 });
  });

  it('reports the token-cache hit rate as n/a for a build without the cache (the other commit)', () => {
    const md = renderMarkdown(results([variant('A', 1), variant('B', 2)]));
    expect(md.split('\n').find((l) => l.startsWith('| 50/s | B |'))).toMatch(/\| n\/a \| 50 refused by policy, 950 results \|$/);
    expect(md).toContain('| token-cache hit % (throughput (1000 at once)) | 90.0 | n/a | – |');
  });

  it('renders the idle phase: CPU % of a core and wake-ups/s per app and the broker, per build', () => {
    const md = idleLines([variant('A', 1), variant('B', 2)]).join('\n');
    expect(md).toContain('| A | 20 | 0.40 | 55.0 | 0.30 | 40.0 | – | – |');
    expect(md).toContain('| B | 20 | 0.80 | 110.0 |');
    expect(comparisonRows(variant('A', 1), variant('B', 2))).toContainEqual({ measure: 'authorizer idle wake-ups/s', a: 55, b: 110 });
    expect(idleLines([{ ...variant('A', 1), idle: undefined }])).toEqual([]);
  });

  it('renders an --idle-only run as the idle table with the decision timed after the window, no steps', () => {
    const idleOnly = { ...variant('A', 1), steps: [], idle: { ...variant('A', 1).idle!, afterIdleMs: 42 } };
    const md = renderMarkdown({ ...results([idleOnly]), options: { ...results([]).options, idleOnly: true } });
    expect(md).toContain('| A | 20 | 0.40 | 55.0 | 0.30 | 40.0 | – | – | 42 |');
    expect(md).not.toContain('## Steps');
  });

  it('charts the sweep steps only', () => {
    expect(chartSeries(results([variant('A', 1)]))[0].points.map((p) => p.offered)).toEqual([50, 200]);
  });

  it('renders no scale section unless the run had a scale phase', () => {
    expect(renderMarkdown(results([variant('current', 1)]))).not.toContain('## Scale');
  });
});

const relay = (processes: number, rowsPerS: number, published: (number | null)[]): RelayScaleResult => ({
  processes,
  rows: 50000,
  seconds: 50000 / rowsPerS,
  rowsPerS,
  publishedByProcess: published,
  busyPercent: 95,
  cpuMsPer1000: { relay: 120, postgres: 80.04, broker: 60 },
});
const journal = (processes: number, batch: number, entriesPerS: number): JournalScaleResult => ({
  processes,
  batch,
  seconds: 10,
  entries: entriesPerS * 10,
  transactions: (entriesPerS * 10) / batch,
  entriesPerS,
  transactionsPerS: entriesPerS / batch,
  p50Ms: 3,
  p99Ms: 12.34,
  busyPercent: 97,
  lockWaitPercent: 75,
  cpuMsPer1000: { appender: 300, postgres: 200 },
});
const scale: ScaleResults = {
  relay: [relay(1, 5000, [50000]), relay(2, 5000, [30000, 20000]), relay(4, 2500, [50000, 0, null, 0])],
  journal: [journal(1, 1, 400), journal(2, 1, 600), journal(1, 32, 6400), journal(2, 32, 3200)],
  errors: ['journal x4 batch 1: appender ended'],
};

describe('bench scale report', () => {
  it('gives each rate over the rate of the fewest processes of its own batch', () => {
    expect(scaleGain(scale.journal, (j) => j.entriesPerS, (a, b) => a.batch === b.batch)).toEqual([1, 1.5, 1, 0.5]);
    expect(scaleGain(scale.relay, (r) => r.rowsPerS)).toEqual([1, 1, 0.5]);
  });

  it('renders one relay row per process count and shard count with what each relay published', () => {
    const md = scaleLines(scale).join('\n');
    expect(md).toContain('| 2 | 1 | 50000 | 10.0 | 5000 | 1.00 | 30000 / 20000 | 95.0 | 120.0 | 80.0 | 60.0 |');
    expect(md).toContain('| 4 | 1 | 50000 | 20.0 | 2500 | 0.50 | 50000 / 0 / – / 0 |');
    const sharded = scaleLines({ ...scale, relay: [...scale.relay, { ...relay(4, 7500, [20000, 10000, 10000, 10000]), shards: 4 }] }).join('\n');
    expect(sharded).toContain('| 4 | 4 | 50000 | 6.7 | 7500 | 1.50 | 20000 / 10000 / 10000 / 10000 |');
  });

  it('renders one journal row per process count and batch, with transaction rate and p99', () => {
    const md = scaleLines(scale).join('\n');
    expect(md).toContain('| 2 | 1 | 32 | 3200 | 100 | 0.50 | 3.0 | 12.3 | 75.0 | 97.0 | 300.0 | 200.0 |');
    expect(md).toContain('> failed: journal x4 batch 1: appender ended');
  });

  it('puts the scale section in the report when the run had one', () => {
    expect(renderMarkdown({ ...results([variant('current', 1)]), scale })).toContain('## Scale: the outbox relay and the journal head with N processes');
  });
});

