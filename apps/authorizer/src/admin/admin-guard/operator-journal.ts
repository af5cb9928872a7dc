import { randomUUID } from 'node:crypto';
import type { JournalOperatorAction } from '@arvis/contracts';
import { appendJournal, operatorActionEntry } from '@arvis/journal';
import type { Tx } from '@arvis/persistence';
import type { Operator } from './admin-http';

/** What an act's journal entry was: its pseudo-decision id and its place, (chain, seq) (ADR 0062). */
export interface JournaledAct {
  actId: string;
  journalSeq: string;
  /** The entry's chain: a seq names an entry only with it. Not `chain`, which reconcile uses for the chain it restored. */
  journalChain: string;
}

/**
 * Journals an operator's act about no decision, in the caller's transaction: the state change and
 * its entry commit together or not at all (ADR 0036).
 */
export async function journalOperatorAct(tx: Tx, journalTopic: string, operator: Operator, action: JournalOperatorAction): Promise<JournaledAct> {
  // Canonical JSON has no undefined: an act without a note has no note key.
  const act = { name: action.name, target: action.target, ...(action.note !== undefined && action.note !== '' ? { note: action.note } : {}) };
  const [entry] = await appendJournal(tx, [operatorActionEntry(randomUUID(), operator, act)], journalTopic);
  return { actId: entry.decisionId, journalSeq: entry.journalSeq, journalChain: entry.chain };
}
