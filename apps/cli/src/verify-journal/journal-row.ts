import { FINAL_JOURNAL_KINDS, MAIN_JOURNAL_CHAIN, type JournalKind } from '@arvis/contracts';
import { canonicalJson, chainHash } from '@arvis/crypto';

/** One journal table row as the CLI reads it (bigints as text: the wire contract's form). */
export interface JournalRow {
  journal_seq: string;
  kind: string;
  decision_id: string;
  run_id: string;
  tenant: string;
  tool: string;
  effect_boundary: string;
  success: boolean;
  reason_code: string | null;
  final_decision_id: string | null;
  result_capability_id: string | null;
  entry: string;
  prev_hash: string;
  hash: string;
  chain: string;
}

// journal_seq is read as text (64-bit); ORDER BY must then name journal.journal_seq, since a bare
// journal_seq would sort by the text alias (1, 10, 2, ...).
export const JOURNAL_ROW_COLUMNS = `journal_seq::text AS journal_seq, kind, decision_id, run_id, tenant, tool, effect_boundary,
  success, reason_code, final_decision_id, result_capability_id, entry, prev_hash, hash, chain`;

export const FINAL_KINDS: string[] = [...FINAL_JOURNAL_KINDS];

/** The stored entry without its hash, as appendJournal chained it (journalSeq and prevHash included). */
export type StoredEntry = Record<string, unknown> & {
  kind?: unknown;
  journalSeq?: unknown;
  prevHash?: unknown;
  decisionId?: unknown;
  capabilityId?: unknown;
  chain?: unknown;
};

export function parseEntry(row: Pick<JournalRow, 'entry'>): StoredEntry | null {
  try {
    const value: unknown = JSON.parse(row.entry);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as StoredEntry) : null;
  } catch {
    return null;
  }
}

export type RowCheck =
  | { ok: true; entry: StoredEntry }
  | { ok: false; problem: 'hash' | 'consistency'; detail: string; entry: StoredEntry | null };

/** Recomputes a row's hash from its own prev_hash and stored entry (docs/wire-contract.md, journal chain). */
export function checkRowHash(row: JournalRow): RowCheck {
  const entry = parseEntry(row);
  if (!entry) return { ok: false, problem: 'hash', detail: 'entry is not a JSON object (row changed)', entry };
  let recomputed: string;
  try {
    recomputed = chainHash(row.prev_hash, entry);
  } catch (e) {
    return { ok: false, problem: 'hash', detail: `hash does not recompute: ${(e as Error).message} (row changed)`, entry };
  }
  if (recomputed !== row.hash) return { ok: false, problem: 'hash', detail: 'hash does not recompute (row changed)', entry };
  return { ok: true, entry };
}

/**
 * The row's columns are indexes derived from the hashed entry (appendJournal writes both);
 * queries and unique indexes trust the columns, so a column edited without the entry is a
 * change the hash alone would not reveal.
 */
export function checkRowConsistency(row: JournalRow, entry: StoredEntry): string | null {
  // Whitespace or key order edits keep the hash of the re-canonicalised value but not the text.
  if (canonicalJson(entry) !== row.entry) return 'entry is not in canonical form (row changed)';
  if (entry.journalSeq !== row.journal_seq) return `entry says journalSeq ${String(entry.journalSeq)} (row moved)`;
  if (entry.prevHash !== row.prev_hash) return 'entry prevHash differs from the prev_hash column (row changed)';
  const isFinal = FINAL_JOURNAL_KINDS.has(entry.kind as JournalKind);
  const expected: [keyof JournalRow, unknown][] = [
    ['kind', entry.kind],
    ['decision_id', entry.decisionId],
    ['run_id', entry.runId],
    ['tenant', entry.tenant],
    ['tool', entry.tool],
    ['effect_boundary', entry.effectBoundary],
    ['success', entry.success],
    ['reason_code', entry.reasonCode ?? null],
    ['final_decision_id', isFinal ? entry.decisionId : null],
    ['result_capability_id', entry.kind === 'tool_result' ? (entry.capabilityId ?? null) : null],
    // Entries hashed before the chain field existed have no `chain` key: they are "main".
    ['chain', entry.chain ?? MAIN_JOURNAL_CHAIN],
  ];
  for (const [column, want] of expected) {
    if (row[column] !== want) return `column ${column} disagrees with the entry (row changed)`;
  }
  return null;
}

/** Hash first, then the derived columns: one verdict per row. */
export function checkRow(row: JournalRow): RowCheck {
  const hashed = checkRowHash(row);
  if (!hashed.ok) return hashed;
  const inconsistent = checkRowConsistency(row, hashed.entry);
  return inconsistent ? { ok: false, problem: 'consistency', detail: inconsistent, entry: hashed.entry } : hashed;
}
