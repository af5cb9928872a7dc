import { aggregateOutcomes, type OutcomeGroupRow } from './aggregate-outcomes';
import { esc, renderReportHtml } from './render-html';
import { renderReportText } from './render-text';

const MIN = 60_000;
const since = new Date('2026-11-30T10:00:00Z');
const at = (minute: number) => String(since.getTime() + minute * MIN);
const group = (over: Partial<OutcomeGroupRow>): OutcomeGroupRow => ({
  tool: 'notes.append',
  tenant: 'acme',
  kind: 'tool_result',
  effect_boundary: 'effect_completed',
  reason_code: null,
  bucket_ms: at(0),
  entries: 1,
  ...over,
});
const refusal = (over: Partial<OutcomeGroupRow>) => group({ kind: 'authorization_refusal', effect_boundary: 'pre_effect_refusal', ...over });

const report = aggregateOutcomes(
  { since, until: new Date(since.getTime() + 5 * MIN), bucketMs: MIN },
  [
    group({ entries: 4 }),
    group({ bucket_ms: at(3), entries: 2 }),
    refusal({ tenant: 'globex', reason_code: 'risk_exceeded', bucket_ms: at(3), entries: 2 }),
    refusal({ tool: '<script>alert(1)</script>', tenant: 'globex', reason_code: 'unknown_tool' }),
  ],
  [
    { tool: 'notes.append', samples: 6, p50_ms: 40, p95_ms: 120, max_ms: 130, tool_samples: 6, tool_p50_ms: 3, tool_p95_ms: 7 },
    { tool: '<script>alert(1)</script>', samples: 1, p50_ms: 0, p95_ms: 0, max_ms: 0, tool_samples: 0, tool_p50_ms: null, tool_p95_ms: null },
  ],
);

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

describe('renderReportHtml', () => {
  const html = renderReportHtml(report);

  it('is one page that loads nothing: no script, no external reference, and a policy that forbids fetching', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|url\(|@import|<link|<img|<iframe/i);
  });

  it('escapes every value taken from the journal', () => {
    expect(esc(`<a href="x">&'`)).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('draws a p50 and a p95 bar per tool with latency samples, scaled to the largest p95', () => {
    expect(count(html, /<rect class="bar p50"/g)).toBe(2);
    expect(count(html, /<rect class="bar p95"/g)).toBe(2);
    expect(html).toMatch(/data-tool="notes.append" data-stat="p95" data-ms="120" x="\d+" y="\d+" width="440"/);
    expect(html).toMatch(/data-tool="notes.append" data-stat="p50" data-ms="40" x="\d+" y="\d+" width="147"/);
  });

  it('draws one stacked bar per bucket, one segment per boundary with outcomes in it', () => {
    expect(count(html, /<g class="bucket"/g)).toBe(5);
    const segments = [...html.matchAll(/<rect class="segment [^"]*" data-boundary="([a-z_]+)" data-count="(\d+)"/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(segments).toEqual(['pre_effect_refusal=1', 'effect_completed=4', 'pre_effect_refusal=2', 'effect_completed=2']);
  });

  it('carries the tables and the meaning of latency', () => {
    for (const id of ['by-tool', 'by-tenant', 'by-reason', 'by-boundary']) expect(html).toContain(`<table id="${id}">`);
    expect(html).toContain('<tr><td>notes.append</td><td>8</td><td>2</td><td>6</td><td>40 ms</td><td>120 ms</td><td>3 ms</td><td>7 ms</td></tr>');
    expect(html).toContain('<tr><td>risk_exceeded</td><td>2</td><td>authorization_refusal=2</td></tr>');
    expect(html).toContain('received_at');
  });

  it('says so when no tool has a latency sample', () => {
    const empty = renderReportHtml(aggregateOutcomes({ since, until: new Date(since.getTime() + MIN), bucketMs: MIN }, [], []));
    expect(empty).toContain('No latency samples in this window.');
    expect(count(empty, /<rect /g)).toBe(0);
  });
});

describe('renderReportText', () => {
  it('prints a table per dimension with the boundaries seen as columns', () => {
    const lines = renderReportText(report);
    expect(lines[0]).toBe('outcomes from 2026-11-30T10:00:00.000Z to 2026-11-30T10:05:00.000Z: 9 final entries');
    expect(lines).toContain('  TOOL                       OUTCOMES  pre_effect_refusal  effect_completed  LATENCY p50  p95     TOOL TIME p50  p95');
    expect(lines).toContain('  notes.append               8         2                   6                 40 ms        120 ms  3 ms           7 ms');
    expect(lines).toContain('  globex  3         3                   0');
    expect(lines.some((l) => /^ {2}effect_state_unknown +0$/.test(l))).toBe(true);
  });
});
