import { chainLink } from '@arvis/crypto';
import { isFinalKind, JournalEntryDraftSchema, SPEC_VERSION, type JournalEntry } from '@arvis/contracts';
import { unnestOf, type ColumnMap, type Tx } from '@arvis/persistence';
import { outboxInsert, type OutboxRow } from '@arvis/outbox';
import { traceIdOf, type TraceCarrier } from '@arvis/tracing';
import type { JournalDraft } from './entries';
import { observeFinal } from './journal-metrics';

export interface JournalRow {
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
  return drafts.map(({ trace, admittedAt, ...d }) => {
    const parsed = JournalEntryDraftSchema.safeParse({ ...d, specVersion: SPEC_VERSION, recordedAt });
    if (!parsed.success) {
      throw new JournalDraftError(d.decisionId, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
    return { draft: parsed.data, trace, traceId: traceIdOf(trace), admittedAt };
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
  // The topic copies go in with the entries and the head's move: one statement fewer while the
  // head is locked.
  return (await chainJournal(tx, drafts, journalTopic, true)).entries;
}

/**
 * The entries chained and stored; their topic copies are handed back for the caller to enqueue in
 * its own one outbox statement (the authorizer's slice, ADR 0049), still inside the transaction
 * that holds the head lock, so they take outbox positions in chain order. `enqueueCopies`: they
 * are inserted by the statement that stores the entries instead (appendJournal).
 */
export async function chainJournal(tx: Tx, drafts: readonly JournalDraft[], journalTopic: string, enqueueCopies = false): Promise<{ entries: JournalEntry[]; outbox: OutboxRow[] }> {
  if (drafts.length === 0) return { entries: [], outbox: [] };
  const head = await tx.$queryRaw<{ last_seq: bigint; last_hash: string; chain: string; db_now: Date }[]>`
    SELECT last_seq, last_hash, chain, now() AS db_now FROM journal_head WHERE id = 1 FOR UPDATE`;
  if (head.length !== 1) throw new Error('journal_head row missing: run the migrations');
  let seq = BigInt(head[0].last_seq);
  let prevHash = head[0].last_hash;
  const entries: JournalEntry[] = [];
  const rows: JournalRow[] = [];
  const admitted: (Date | undefined)[] = [];
  const dbNow: Date = head[0].db_now;
  for (const { draft, trace, traceId, admittedAt } of stamp(drafts, dbNow.toISOString())) {
    seq += 1n;
    // chain is hashed: an entry cannot be moved to another chain unnoticed (ADR 0025).
    const unhashed = { ...draft, chain: head[0].chain, journalSeq: seq.toString(), prevHash };
    // The canonical text hashed is the text stored: one canonicalisation per entry.
    const { hash, canonical } = chainLink(prevHash, unhashed);
    const entry = { ...unhashed, hash, ...(traceId ? { traceId } : {}) } as JournalEntry;
    entries.push(entry);
    rows.push({ journalSeq: seq, entry, unhashed: canonical, trace });
    admitted.push(admittedAt);
    prevHash = hash;
  }
  const outbox = rows.map((r): OutboxRow => ({ topic: journalTopic, key: r.entry.runId, payload: JSON.stringify(r.entry), traceContext: r.trace }));
  await insertAndMoveHead(tx, rows, seq, prevHash, enqueueCopies ? outbox : []);
  rows.forEach((r, i) => observeFinal(r.entry, dbNow, admitted[i]));
  return { entries, outbox: enqueueCopies ? [] : outbox };
}

/** The entries, the head's move and (when given) the entries' topic copies in one statement; every row count is checked. */
export async function insertAndMoveHead(tx: Tx, rows: JournalRow[], lastSeq: bigint, lastHash: string, copies: readonly OutboxRow[] = []): Promise<void> {
  const u = unnestOf(JOURNAL_COLUMNS, rows);
  const n = u.params.length;
  const queue = copies.length > 0 ? outboxInsert(copies, n + 2) : undefined;
  const [done] = await tx.$queryRawUnsafe<{ inserted: number; moved: number; queued: number }[]>(
    `WITH inserted AS (INSERT INTO journal (${u.names.join(', ')}) SELECT * FROM ${u.sql} RETURNING 1),
          moved AS (UPDATE journal_head SET last_seq = $${n + 1}::bigint, last_hash = $${n + 2}::text WHERE id = 1 RETURNING 1)${queue ? `,
          queued AS (${queue.sql} RETURNING 1)` : ''}
     SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM moved)::int AS moved, ${queue ? '(SELECT count(*) FROM queued)::int' : '0'} AS queued`,
    ...u.params,
    lastSeq.toString(),
    lastHash,
    ...(queue?.params ?? []),
  );
  if (done.inserted !== rows.length) throw new Error(`inserted ${done.inserted} of ${rows.length} rows into journal`);
  if (done.moved !== 1) throw new Error('journal head did not move');
  if (done.queued !== copies.length) throw new Error(`inserted ${done.queued} of ${copies.length} journal copies into the outbox`);
}
