import { summarizeRun, type RunJournalRow } from './summarize-run';

const row = (seq: number, decisionId: string, kind: string, over: Partial<RunJournalRow> = {}): RunJournalRow => ({
  journal_seq: String(seq),
  kind,
  decision_id: decisionId,
  tenant: 'acme',
  tool: 'notes.append',
  effect_boundary: kind === 'tool_result' ? 'effect_completed' : 'effect_not_started',
  success: kind === 'tool_result',
  reason_code: kind === 'tool_result' ? null : 'confirmation_required',
  ...over,
});

describe('summarizeRun', () => {
  const inbox = ['d0', 'd1', 'd2'].map((id, i) => ({ decision_id: id, tenant: 'acme', causal_id: `c${i}`, tool: 'notes.append', status: 'accepted' }));

  it('gives each decision its final entry, its pending entries and its capability', () => {
    const v = summarizeRun(
      'run-1',
      inbox,
      [row(1, 'd0', 'tool_result'), row(2, 'd1', 'confirmation_pending'), row(3, 'd2', 'authorization_refusal', { effect_boundary: 'pre_effect_refusal', reason_code: 'risk_exceeded' })],
      [{ decision_id: 'd0', tenant: 'acme', capability_id: 'cap0', state: 'consumed', consumed_by: 'disp', revoked_reason: null }],
    );
    expect(v.counts).toEqual({ decisions: 3, final: 2, awaitingFinal: 1, entries: 3 });
    const [d0, d1, d2] = v.decisions;
    expect(d0.final?.journalSeq).toBe('1');
    expect(d0.capability).toEqual({ capabilityId: 'cap0', state: 'consumed', consumedBy: 'disp', revokedReason: null });
    expect(d1.final).toBeNull();
    expect(d1.pending.map((p) => p.kind)).toEqual(['confirmation_pending']);
    expect(d2.final?.reasonCode).toBe('risk_exceeded');
    expect(v.decisions.every((d) => d.problems.length === 0)).toBe(true);
  });

  it('flags a second final entry and a decision missing from the inbox', () => {
    const v = summarizeRun('run-1', inbox.slice(0, 1), [row(1, 'd0', 'tool_result'), row(2, 'd0', 'tool_result'), row(3, 'dx', 'tool_result')], []);
    expect(v.decisions[0].problems).toEqual(['another final entry at journal_seq 2 (first at 1)']);
    expect(v.decisions[1].problems).toEqual(['journaled but not in the decision inbox']);
  });

  it("keeps two tenants' decisions with one id apart (ADR 0061)", () => {
    const both = [inbox[0], { ...inbox[0], tenant: 'globex' }];
    const v = summarizeRun('run-1', both, [row(1, 'd0', 'tool_result'), row(2, 'd0', 'tool_result', { tenant: 'globex' })], [
      { decision_id: 'd0', tenant: 'globex', capability_id: 'cap-g', state: 'consumed', consumed_by: 'disp', revoked_reason: null },
    ]);
    expect(v.decisions.map((d) => [d.tenant, d.decisionId, d.final?.journalSeq, d.capability?.capabilityId ?? null, d.problems])).toEqual([
      ['acme', 'd0', '1', null, []],
      ['globex', 'd0', '2', 'cap-g', []],
    ]);
  });
});
