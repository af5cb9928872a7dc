import { FINAL_JOURNAL_KINDS, type JournalKind } from '@arvis/contracts';
import type { StoredEntry } from '../verify-journal/journal-row';

export interface OrderMismatch {
  journalSeq: string;
  decisionId: string;
  message: string;
}

/**
 * An approver's verdict (ADR 0032) in a run's journal order: it follows its decision's
 * confirmation_pending and precedes the decision's final entry; an approval precedes the
 * decision's tool_result, a denial its final refusal (confirmation_denied); a decision gets at
 * most one verdict. Journals written before the verdict kinds existed have none: nothing to check.
 * Takes the run's entries in journal order; returns the mismatches.
 */
export function checkConfirmationOrder(entries: readonly StoredEntry[]): OrderMismatch[] {
  const seen = new Map<string, { pending: boolean; verdict?: string; final?: string }>();
  const found: OrderMismatch[] = [];
  for (const e of entries) {
    const id = String(e.decisionId);
    const miss = (message: string) => found.push({ journalSeq: String(e.journalSeq), decisionId: id, message: `journal_seq ${String(e.journalSeq)}: ${message}` });
    const d = seen.get(id) ?? { pending: false };
    seen.set(id, d);
    if (e.kind === 'confirmation_pending') d.pending = true;
    else if (e.kind === 'confirmation_approved' || e.kind === 'confirmation_denied') {
      if (!d.pending) miss(`${e.kind} without an earlier confirmation_pending`);
      if (d.verdict) miss(`${e.kind} after ${d.verdict} (a decision has one verdict)`);
      if (d.final) miss(`${e.kind} after the decision's final ${d.final}`);
      d.verdict = e.kind;
    } else if (FINAL_JOURNAL_KINDS.has(e.kind as JournalKind)) {
      d.final = String(e.kind);
      if (d.verdict === 'confirmation_denied' && !(e.kind === 'authorization_refusal' && e.reasonCode === 'confirmation_denied')) {
        miss(`denied, but ends in ${e.kind} ${String(e.reasonCode ?? '')}`.trimEnd());
      }
      if (d.verdict === 'confirmation_approved' && e.reasonCode === 'confirmation_denied') miss(`approved, but ends denied`);
    }
  }
  return found;
}
