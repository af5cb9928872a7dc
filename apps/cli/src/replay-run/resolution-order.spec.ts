import type { StoredEntry } from '../verify-journal/journal-row';
import { checkResolutionOrder } from './resolution-order';

const entry = (journalSeq: number, kind: string, over: Record<string, unknown> = {}): StoredEntry =>
  ({ journalSeq: String(journalSeq), decisionId: 'd-1', kind, effectBoundary: 'effect_not_started', ...over }) as StoredEntry;
const unknown = (seq: number) => entry(seq, 'tool_result', { effectBoundary: 'effect_state_unknown', reasonCode: 'dispatcher_lost_during_effect' });
const resolution = (seq: number, boundary = 'effect_completed') =>
  entry(seq, 'operator_action', { effectBoundary: boundary, action: { name: 'resolve_unknown_effect', target: 'd-1', note: 'checked' } });

describe('the order of an unknown effect\'s resolution in a run', () => {
  it('accepts one resolution after the final effect_state_unknown, and operator acts about no decision', () => {
    expect(checkResolutionOrder([unknown(1), resolution(2)])).toEqual([]);
    expect(checkResolutionOrder([unknown(1), resolution(2, 'effect_not_started')])).toEqual([]);
    expect(checkResolutionOrder([entry(1, 'operator_action', { decisionId: 'arvis.operator.x', action: { name: 'revoke_session', target: 'h' } })])).toEqual([]);
  });

  it('finds a resolution before the final entry, of a decision that did not end unknown, and a second one', () => {
    expect(checkResolutionOrder([resolution(1), unknown(2)]).map((m) => m.message)).toEqual(["journal_seq 1: resolve_unknown_effect before the decision's final entry"]);
    const completed = entry(1, 'tool_result', { effectBoundary: 'effect_completed', success: true });
    expect(checkResolutionOrder([completed, resolution(2)]).map((m) => m.message)).toEqual([
      'journal_seq 2: resolve_unknown_effect of a decision that ended tool_result effect_completed, not effect_state_unknown',
    ]);
    expect(checkResolutionOrder([unknown(1), resolution(2), resolution(3)]).map((m) => m.message)).toEqual([
      'journal_seq 3: a second resolve_unknown_effect (an effect is resolved once)',
    ]);
  });

  it('accepts a late body result after the final effect_state_unknown of its capability, and finds one anywhere else', () => {
    const late = (seq: number, over: Record<string, unknown> = {}) => entry(seq, 'late_tool_result', { effectBoundary: 'effect_completed', capabilityId: 'cap-1', ...over });
    const lost = (seq: number) => entry(seq, 'tool_result', { effectBoundary: 'effect_state_unknown', capabilityId: 'cap-1' });
    expect(checkResolutionOrder([lost(1), late(2), resolution(3)])).toEqual([]);
    expect(checkResolutionOrder([late(1), lost(2)]).map((m) => m.message)).toEqual(["journal_seq 1: late_tool_result before the decision's final entry"]);
    expect(checkResolutionOrder([lost(1), late(2, { capabilityId: 'cap-2' })]).map((m) => m.message)).toEqual([
      "journal_seq 2: late_tool_result of another capability than the final entry's",
    ]);
    const completed = entry(1, 'tool_result', { effectBoundary: 'effect_completed', capabilityId: 'cap-1' });
    expect(checkResolutionOrder([completed, late(2)]).map((m) => m.message)).toEqual([
      'journal_seq 2: late_tool_result of a decision that ended tool_result effect_completed, not effect_state_unknown',
    ]);
  });
});
