import { FINAL_JOURNAL_KINDS, type JournalKind } from '@arvis/contracts';
import type { StoredEntry } from '../verify-journal/journal-row';
import type { OrderMismatch } from './confirmation-order';

const actionName = (e: StoredEntry): unknown => (e.action !== null && typeof e.action === 'object' ? (e.action as Record<string, unknown>).name : undefined);

/**
 * An operator's resolution of an unknown effect (ADR 0036) in a run's journal order: it follows
 * its decision's final entry, which must be a tool_result effect_state_unknown, and a decision is
 * resolved at most once. Other operator acts are about no decision of a run: nothing to check.
 * A late body result (ADR 0056) likewise follows a final tool_result effect_state_unknown of the
 * same capability.
 * Takes the run's entries in journal order; returns the mismatches.
 */
export function checkResolutionOrder(entries: readonly StoredEntry[]): OrderMismatch[] {
  const finals = new Map<string, StoredEntry>();
  const resolved = new Set<string>();
  const found: OrderMismatch[] = [];
  for (const e of entries) {
    const id = String(e.decisionId);
    if (FINAL_JOURNAL_KINDS.has(e.kind as JournalKind)) finals.set(id, e);
    if (e.kind === 'late_tool_result') found.push(...lateResultOutOfOrder(e, finals.get(id)));
    if (e.kind !== 'operator_action' || actionName(e) !== 'resolve_unknown_effect') continue;
    const miss = (message: string) => found.push({ journalSeq: String(e.journalSeq), decisionId: id, message: `journal_seq ${String(e.journalSeq)}: ${message}` });
    const final = finals.get(id);
    if (!final) miss('resolve_unknown_effect before the decision\'s final entry');
    else if (final.kind !== 'tool_result' || final.effectBoundary !== 'effect_state_unknown') {
      miss(`resolve_unknown_effect of a decision that ended ${String(final.kind)} ${String(final.effectBoundary)}, not effect_state_unknown`);
    }
    if (resolved.has(id)) miss('a second resolve_unknown_effect (an effect is resolved once)');
    resolved.add(id);
  }
  return found;
}

function lateResultOutOfOrder(e: StoredEntry, final: StoredEntry | undefined): OrderMismatch[] {
  const problem = !final
    ? 'late_tool_result before the decision\'s final entry'
    : final.kind !== 'tool_result' || final.effectBoundary !== 'effect_state_unknown'
      ? `late_tool_result of a decision that ended ${String(final.kind)} ${String(final.effectBoundary)}, not effect_state_unknown`
      : final.capabilityId !== e.capabilityId
        ? 'late_tool_result of another capability than the final entry\'s'
        : null;
  return problem ? [{ journalSeq: String(e.journalSeq), decisionId: String(e.decisionId), message: `journal_seq ${String(e.journalSeq)}: ${problem}` }] : [];
}
