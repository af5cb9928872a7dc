import { canonicalJson, chainHash } from '@arvis/crypto';
import { isFinalKind, JournalEntryDraftSchema, SPEC_VERSION, type JournalEntry } from '@arvis/contracts';
import { insertRows, type ColumnMap, type Tx } from '@arvis/persistence';
import { enqueueOutbox } from '@arvis/outbox';
import { traceIdOf, type TraceCarrier } from '@arvis/tracing';
import type { JournalDraft } from './entries';

interface JournalRow {
  journalSeq: bigint;
  entry: JournalEntry;
  unhashed: string;
  trace?: TraceCarrier;
}

const JOURNAL_COLUMNS: ColumnMap<JournalRow> = {
  journal_seq: ['bigint', (r) => r.journalSeq],
  kind: ['text', (r) => r.entry.kind],
  decision_id: ['text', (r) => r.entry.decisionId],
  run_id: ['text', (r) => r.entry.runId],
  tenant: ['text', (r) => r.entry.tenant],
  tool: ['text', (r) => r.entry.tool],
  effect_boundary: ['text', (r) => r.entry.effectBoundary],
  success: ['boolean', (r) => r.entry.success],
  reason_code: ['text', (r) => r.entry.reasonCode ?? null],
  final_decision_id: ['text', (r) => (isFinalKind(r.entry.kind) ? r.entry.decisionId : null)],
  result_capability_id: ['text', (r) => (r.entry.kind === 'tool_result' ? (r.entry.capabilityId ?? null) : null)],
  entry: ['text', (r) => r.unhashed],
  trace_id: ['text', (r) => r.entry.traceId ?? null],
  prev_hash: ['text', (r) => r.entry.prevHash],
  hash: ['text', (r) => r.entry.hash],
  recorded_at: ['timestamptz', (r) => new Date(r.entry.recordedAt)],
  chain: ['text', (r) => r.entry.chain],
};

/** A draft the contract's kind table refuses: a fault in the writer, never chained. */
export class JournalDraftError extends Error {
  constructor(readonly decisionId: string, detail: string) {
    super(`journal draft for ${decisionId} refused by the contract: ${detail}`);
    this.name = 'JournalDraftError';
  }
}

/** Every draft, stamped, parsed against the contract (kind table included) before it is chained. */
function stamp(drafts: readonly JournalDraft[], recordedAt: string) {
  return drafts.map(({ trace, ...d }) => {
    const parsed = JournalEntryDraftSchema.safeParse({ ...d, specVersion: SPEC_VERSION, recordedAt });
    if (!parsed.success) {
      throw new JournalDraftError(d.decisionId, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
    return { draft: parsed.data, trace, traceId: traceIdOf(trace) };
  });
}

/**
 * Appends entries to the global hash chain and copies them to the journal topic through the
 * outbox, inside the caller's transaction. The chain head row is locked (FOR UPDATE) so
 * journalSeq and prevHash are assigned in one order across every writer of both apps; callers
 * append last in their transaction to hold that lock briefly. recordedAt is the database's time.
 * The trace id is added after hashing, beside `hash`: it is in the topic copy and the trace_id
 * column, never in the hashed entry text (ADR 0028).
 */
export async function appendJournal(tx: Tx, drafts: readonly JournalDraft[], journalTopic: string): Promise<JournalEntry[]> {
  if (drafts.length === 0) return [];
  const head = await tx.$queryRaw<{ last_seq: bigint; last_hash: string; chain: string; db_now: Date }[]>`
    SELECT last_seq, last_hash, chain, now() AS db_now FROM journal_head WHERE id = 1 FOR UPDATE`;
  if (head.length !== 1) throw new Error('journal_head row missing: run the migrations');
  let seq = BigInt(head[0].last_seq);
  let prevHash = head[0].last_hash;
  const entries: JournalEntry[] = [];
  const rows: JournalRow[] = [];
  for (const { draft, trace, traceId } of stamp(drafts, head[0].db_now.toISOString())) {
    seq += 1n;
    // chain is hashed: an entry cannot be moved to another chain unnoticed (ADR 0025).
    const unhashed = { ...draft, chain: head[0].chain, journalSeq: seq.toString(), prevHash };
    const hash = chainHash(prevHash, unhashed);
    const entry = { ...unhashed, hash, ...(traceId ? { traceId } : {}) } as JournalEntry;
    entries.push(entry);
    rows.push({ journalSeq: seq, entry, unhashed: canonicalJson(unhashed), trace });
    prevHash = hash;
  }
  await insertRows(tx, 'journal', JOURNAL_COLUMNS, rows);
  const moved = await tx.$executeRaw`
    UPDATE journal_head SET last_seq = ${seq}, last_hash = ${prevHash} WHERE id = 1`;
  if (moved !== 1) throw new Error('journal head did not move');
  await enqueueOutbox(
    tx,
    rows.map((r) => ({ topic: journalTopic, key: r.entry.runId, payload: JSON.stringify(r.entry), traceContext: r.trace })),
  );
  return entries;
}
