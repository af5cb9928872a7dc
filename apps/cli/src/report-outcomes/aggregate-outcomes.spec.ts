import { aggregateOutcomes, zeroCounts, type OutcomeGroupRow, type ToolLatencyRow } from './aggregate-outcomes';
import type { ReportWindow } from './report-window';

const MIN = 60_000;
const window: ReportWindow = { since: new Date('2026-11-30T10:00:00Z'), until: new Date('2026-11-30T10:03:00Z'), bucketMs: MIN };
const at = (minute: number) => String(window.since.getTime() + minute * MIN);

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
const latency = (tool: string, p50: number, p95: number): ToolLatencyRow => ({
  tool,
  samples: 4,
  p50_ms: p50,
  p95_ms: p95,
  max_ms: p95 + 1,
  tool_samples: 4,
  tool_p50_ms: 2,
  tool_p95_ms: 3,
});

describe('aggregateOutcomes', () => {
  const groups = [
    group({ entries: 3 }),
    group({ tenant: 'globex', bucket_ms: at(2), entries: 2 }),
    group({ tenant: 'globex', kind: 'authorization_refusal', effect_boundary: 'pre_effect_refusal', reason_code: 'risk_exceeded', entries: 2 }),
    group({ tool: 'shell.exec', tenant: 'globex', kind: 'authorization_refusal', effect_boundary: 'pre_effect_refusal', reason_code: 'unknown_tool', bucket_ms: at(1) }),
    group({ tool: 'mail.send', kind: 'tool_result', effect_boundary: 'effect_failed', reason_code: 'tool_error', bucket_ms: at(1) }),
    group({ tool: 'mail.send', kind: 'admission_refusal', effect_boundary: 'pre_effect_refusal', reason_code: 'risk_exceeded', bucket_ms: at(2) }),
    // Progress notes: counted apart, never as outcomes.
    group({ tool: 'ledger.transfer', kind: 'confirmation_pending', effect_boundary: 'effect_not_started', reason_code: 'confirmation_required', entries: 4 }),
    group({ kind: 'audit_incomplete', effect_boundary: 'effect_completed', reason_code: 'audit_incomplete' }),
  ];
  const report = aggregateOutcomes(window, groups, [latency('notes.append', 20, 80), latency('mail.send', 5, 9), latency('ledger.transfer', 1, 1)]);

  it('counts final entries only as outcomes, and progress entries apart by kind', () => {
    expect(report.outcomes).toBe(10);
    expect(report.progress).toEqual({ confirmation_pending: 4, audit_incomplete: 1 });
    expect(report.byBoundary).toEqual({ ...zeroCounts(), effect_completed: 5, pre_effect_refusal: 4, effect_failed: 1 });
    expect(report.window).toEqual({ since: '2026-11-30T10:00:00.000Z', until: '2026-11-30T10:03:00.000Z', bucketMs: MIN });
  });

  it('groups by tool, busiest first, with each tool\'s boundaries and latency', () => {
    expect(report.byTool.map((t) => [t.tool, t.outcomes])).toEqual([['notes.append', 7], ['mail.send', 2], ['shell.exec', 1]]);
    const [notes, mail, shell] = report.byTool;
    expect(notes.byBoundary).toEqual({ ...zeroCounts(), effect_completed: 5, pre_effect_refusal: 2 });
    expect(notes.latency).toEqual({ samples: 4, p50Ms: 20, p95Ms: 80, maxMs: 81 });
    expect(notes.toolTime).toEqual({ samples: 4, p50Ms: 2, p95Ms: 3 });
    expect(mail.byBoundary).toEqual({ ...zeroCounts(), effect_failed: 1, pre_effect_refusal: 1 });
    // No latency row for a tool: no samples, not zero.
    expect(shell.latency).toEqual({ samples: 0, p50Ms: null, p95Ms: null, maxMs: null });
  });

  it('groups by tenant and by reason code, with the kinds each reason ended as', () => {
    expect(report.byTenant.map((t) => [t.tenant, t.outcomes, t.byBoundary.pre_effect_refusal])).toEqual([
      ['acme', 5, 1],
      ['globex', 5, 3],
    ]);
    expect(report.byReason).toEqual([
      { reasonCode: 'risk_exceeded', outcomes: 3, byKind: { authorization_refusal: 2, admission_refusal: 1 } },
      { reasonCode: 'tool_error', outcomes: 1, byKind: { tool_result: 1 } },
      { reasonCode: 'unknown_tool', outcomes: 1, byKind: { authorization_refusal: 1 } },
    ]);
  });

  it('puts outcomes in every bucket of the window, empty ones included', () => {
    expect(report.timeline.map((b) => [b.start.slice(11, 16), b.outcomes])).toEqual([
      ['10:00', 5],
      ['10:01', 2],
      ['10:02', 3],
    ]);
    expect(report.timeline[2].byBoundary).toEqual({ ...zeroCounts(), effect_completed: 2, pre_effect_refusal: 1 });
    const empty = aggregateOutcomes(window, [], []);
    expect(empty.timeline.map((b) => b.outcomes)).toEqual([0, 0, 0]);
    expect([empty.outcomes, empty.byTool, empty.byReason]).toEqual([0, [], []]);
  });

  it('treats a group outside the window as a fault of the query', () => {
    expect(() => aggregateOutcomes(window, [group({ bucket_ms: at(5) })], [])).toThrow(/outside the report window/);
  });
});
