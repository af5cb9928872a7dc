import { Counter, Histogram } from 'prom-client';
import { isFinalKind, type JournalEntry } from '@arvis/contracts';

/**
 * Counted where every final entry is chained (appendJournal, the one path both apps append by):
 * one increment per final entry, from fields the entry already has, no statement. Registered by
 * no registry here: the process's MetricsRegistry adopts them (libs/runtime), so a library has
 * no global registry of its own. Counted when chained, inside the writer's transaction: a
 * transaction that then rolls back (a rare fault; its decision is written again) counts twice.
 */
export const decisionsFinalTotal = new Counter({
  name: 'arvis_decisions_total',
  help: 'Decisions that reached a final journal entry, by final kind, reason code ("none" for a success) and tool',
  labelNames: ['kind', 'reason_code', 'tool'],
  registers: [],
});

/** Buckets from 5 ms to 2 min: a decision runs in milliseconds, a parked one waits for a person. */
export const decisionToFinalSeconds = new Histogram({
  name: 'arvis_decision_to_final_seconds',
  help: 'From the intent commit (the decision admitted) to its final journal entry, for finals the dispatcher writes; database clock at both ends',
  labelNames: ['kind'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [],
});

// A refused decision can name a tool no catalog has (the producer's text): the label keeps the
// first MAX_TOOL_LABELS names seen and folds the rest into "other", so its series stay bounded.
const MAX_TOOL_LABELS = 100;
const toolLabels = new Set<string>();
function toolLabel(tool: string): string {
  if (toolLabels.has(tool)) return tool;
  if (toolLabels.size >= MAX_TOOL_LABELS) return 'other';
  toolLabels.add(tool);
  return tool;
}

/** One counter increment per final entry, and its latency when the writer knew the admission time. */
export function observeFinal(entry: JournalEntry, recordedAt: Date, admittedAt: Date | undefined): void {
  if (!isFinalKind(entry.kind)) return;
  decisionsFinalTotal.inc({ kind: entry.kind, reason_code: entry.reasonCode ?? 'none', tool: toolLabel(entry.tool) });
  if (admittedAt) decisionToFinalSeconds.observe({ kind: entry.kind }, Math.max(0, (recordedAt.getTime() - admittedAt.getTime()) / 1000));
}

export const journalMetrics = [decisionsFinalTotal, decisionToFinalSeconds] as const;
