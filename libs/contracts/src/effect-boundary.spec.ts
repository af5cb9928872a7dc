import { EffectBoundary, FINAL_JOURNAL_KINDS, JournalKind, isFinalKind } from './index';

describe('effect boundary and journal kinds', () => {
  it('lists exactly the six effect boundaries of docs/wire-contract.md', () => {
    expect(EffectBoundary.options).toEqual([
      'pre_effect_refusal',
      'effect_not_started',
      'effect_started',
      'effect_completed',
      'effect_failed',
      'effect_state_unknown',
    ]);
  });

  it('lists exactly the nine journal kinds of docs/wire-contract.md', () => {
    expect(JournalKind.options).toEqual([
      'tool_result',
      'authorization_refusal',
      'admission_refusal',
      'confirmation_pending',
      'audit_incomplete',
      'confirmation_approved',
      'confirmation_denied',
      'operator_action',
      'late_tool_result',
    ]);
  });

  it('marks only tool_result and the two refusals as final', () => {
    expect([...FINAL_JOURNAL_KINDS].sort()).toEqual(['admission_refusal', 'authorization_refusal', 'tool_result']);
    expect(JournalKind.options.filter(isFinalKind)).toEqual(['tool_result', 'authorization_refusal', 'admission_refusal']);
    expect(isFinalKind('confirmation_pending')).toBe(false);
    expect(isFinalKind('audit_incomplete')).toBe(false);
    expect(isFinalKind('confirmation_approved')).toBe(false);
    expect(isFinalKind('confirmation_denied')).toBe(false);
    expect(isFinalKind('operator_action')).toBe(false);
    expect(isFinalKind('late_tool_result')).toBe(false);
  });
});
