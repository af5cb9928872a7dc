import { FINAL_JOURNAL_KINDS, OPERATOR_RUN_ID, type JournalKind } from '@arvis/contracts';

// Ids are the tenant's own (ADR 0061): one run id may name runs of several tenants, each decision by (tenant, id).
export interface InboxRow {
  decision_id: string;
  tenant: string;
  causal_id: string;
  tool: string;
  status: string;
}

export interface RunJournalRow {
  journal_seq: string;
  kind: string;
  decision_id: string;
  tenant: string;
  tool: string;
  effect_boundary: string;
  success: boolean;
  reason_code: string | null;
}

export interface RunCapabilityRow {
  decision_id: string;
  tenant: string;
  capability_id: string;
  state: string;
  consumed_by: string | null;
  revoked_reason: string | null;
}

export interface EntryView {
  journalSeq: string;
  kind: string;
  effectBoundary: string;
  success: boolean;
  reasonCode: string | null;
}

export interface DecisionView {
  decisionId: string;
  tenant: string;
  causalId: string | null;
  tool: string;
  inboxStatus: string | null;
  final: EntryView | null;
  pending: EntryView[];
  capability: { capabilityId: string; state: string; consumedBy: string | null; revokedReason: string | null } | null;
  /** Anything the analyst should not have to spot: several finals, a final with no inbox row. */
  problems: string[];
}

export interface RunView {
  runId: string;
  decisions: DecisionView[];
  counts: { decisions: number; final: number; awaitingFinal: number; entries: number };
}

const view = (r: RunJournalRow): EntryView => ({
  journalSeq: r.journal_seq,
  kind: r.kind,
  effectBoundary: r.effect_boundary,
  success: r.success,
  reasonCode: r.reason_code,
});

/** Groups a run's inbox, journal and capability rows by decision (journal rows in seq order). */
export function summarizeRun(runId: string, inbox: InboxRow[], journal: RunJournalRow[], capabilities: RunCapabilityRow[]): RunView {
  const byId = new Map<string, DecisionView>();
  const key = (r: { decision_id: string; tenant: string }) => JSON.stringify([r.tenant, r.decision_id]);
  const decision = (r: { decision_id: string; tenant: string }, tool: string): DecisionView => {
    let d = byId.get(key(r));
    if (!d) {
      d = { decisionId: r.decision_id, tenant: r.tenant, causalId: null, tool, inboxStatus: null, final: null, pending: [], capability: null, problems: [] };
      byId.set(key(r), d);
    }
    return d;
  };
  for (const i of inbox) Object.assign(decision(i, i.tool), { causalId: i.causal_id, inboxStatus: i.status });
  for (const r of journal) {
    const d = decision(r, r.tool);
    if (!FINAL_JOURNAL_KINDS.has(r.kind as JournalKind)) d.pending.push(view(r));
    else if (d.final) d.problems.push(`another final entry at journal_seq ${r.journal_seq} (first at ${d.final.journalSeq})`);
    else d.final = view(r);
  }
  for (const c of capabilities) {
    const d = byId.get(key(c));
    if (d) d.capability = { capabilityId: c.capability_id, state: c.state, consumedBy: c.consumed_by, revokedReason: c.revoked_reason };
  }
  // Operator acts about no decision (ADR 0036) are their own pseudo-decisions, never in the inbox.
  const operatorRun = runId === OPERATOR_RUN_ID;
  for (const d of byId.values()) if (d.inboxStatus === null && !operatorRun) d.problems.push('journaled but not in the decision inbox');
  const decisions = [...byId.values()];
  const final = decisions.filter((d) => d.final).length;
  return { runId, decisions, counts: { decisions: decisions.length, final, awaitingFinal: decisions.length - final, entries: journal.length } };
}
