import { chainLink } from '@arvis/crypto';
import { isFinalKind, JournalEntryDraftSchema, SPEC_VERSION, type JournalEntry } from '@arvis/contracts';
import { unnestOf, type ColumnMap, type Tx } from '@arvis/persistence';
import { outboxInsertFrom } from '@arvis/outbox';
import { traceIdOf, type TraceCarrier } from '@arvis/tracing';
import type { JournalDraft } from './entries';
import { observeFinal } from './journal-metrics';
import { shardKeyOf } from './journal-shards';

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

/** A chain head as locked: where the next entry of its chain goes. */
export interface LockedHead {
  shard: number;
  chain: string;
  lastSeq: bigint;
  lastHash: string;
}

/**
 * Locks the heads of the shards these (tenant, run) keys fall in, in shard order, and returns
 * them with the shard count and the database's time, in one statement. The count is the
 * database's (its head rows), never a process's own setting: every writer hashes into the same
 * chains (ADR 0062).
 */
async function lockHeads(tx: Tx, keys: readonly number[]): Promise<{ shards: number; heads: Map<number, LockedHead>; dbNow: Date }> {
  const rows = await tx.$queryRawUnsafe<{ shard: number; chain: string; last_seq: bigint; last_hash: string; shards: number; db_now: Date }[]>(
    `WITH n AS (SELECT count(*)::int AS shards FROM journal_head)
     SELECT h.shard, h.chain, h.last_seq, h.last_hash, n.shards, now() AS db_now
     FROM journal_head h, n
     WHERE h.shard IN (SELECT (k % n.shards)::int FROM unnest($1::bigint[]) k)
     ORDER BY h.shard
     FOR UPDATE OF h`,
    [...new Set(keys)].map(String),
  );
  if (rows.length === 0) throw new Error('journal_head rows missing: run the migrations');
  const heads = new Map(rows.map((r) => [r.shard, { shard: r.shard, chain: r.chain, lastSeq: BigInt(r.last_seq), lastHash: r.last_hash }]));
  return { shards: rows[0].shards, heads, dbNow: rows[0].db_now };
}

/**
 * Appends entries to the journal's hash chains and copies them to the journal topic through the
 * outbox, inside the caller's transaction. The journal is split into chains (shards, ADR 0062),
 * one head row each; an entry's chain is chosen from its (tenant, runId), so a run's entries are
 * all in one chain. The heads the drafts need are locked (FOR UPDATE, in shard order, so two
 * appends spanning the same shards never deadlock), and journalSeq and prevHash are assigned in
 * one order per chain across every writer of both apps. Callers append last in their transaction:
 * whoever holds a head then waits for no other lock (no deadlock with a writer waiting for the
 * head) and holds it for two statements and the commit (ADR 0084). The entries' topic copies go in
 * with the entries and the heads' move, under the lock, so they take outbox positions in chain
 * order. recordedAt is the database's time. The trace id is added after hashing, beside `hash`:
 * it is in the topic copy and the trace_id column, never in the hashed entry text (ADR 0028).
 */
export async function appendJournal(tx: Tx, drafts: readonly JournalDraft[], journalTopic: string): Promise<JournalEntry[]> {
  if (drafts.length === 0) return [];
  const keys = drafts.map((d) => shardKeyOf(d.tenant, d.runId));
  const { shards, heads, dbNow } = await lockHeads(tx, keys);
  const entries: JournalEntry[] = [];
  const rows: JournalRow[] = [];
  const admitted: (Date | undefined)[] = [];
  stamp(drafts, dbNow.toISOString()).forEach(({ draft, trace, traceId, admittedAt }, i) => {
    const head = heads.get(keys[i] % shards);
    if (!head) throw new Error(`journal_head of shard ${keys[i] % shards} missing: run the migrations`);
    const seq = head.lastSeq + 1n;
    // chain is hashed: an entry cannot be moved to another chain unnoticed (ADR 0025).
    const unhashed = { ...draft, chain: head.chain, journalSeq: seq.toString(), prevHash: head.lastHash };
    // The canonical text hashed is the text stored: one canonicalisation per entry.
    const { hash, canonical } = chainLink(head.lastHash, unhashed);
    const entry = { ...unhashed, hash, ...(traceId ? { traceId } : {}) } as JournalEntry;
    entries.push(entry);
    rows.push({ journalSeq: seq, entry, unhashed: canonical, trace });
    admitted.push(admittedAt);
    head.lastSeq = seq;
    head.lastHash = hash;
  });
  const moved = [...heads.values()].filter((h) => rows.some((r) => r.entry.chain === h.chain));
  await insertAndMoveHeads(tx, rows, moved, { topic: journalTopic });
  rows.forEach((r, i) => observeFinal(r.entry, dbNow, admitted[i]));
  return entries;
}

/**
 * The topic copy of each entry, built by PostgreSQL from the entry's own parameters: the stored
 * text (canonical, unhashed, always a JSON object) with `hash` and, when traced, `traceId` added
 * before its closing brace. No second copy of the entry travels to the database, and none is
 * serialised here. Both are lowercase hex, so they need no escaping (ADR 0088). A final entry's copy names
 * its tenant: the relay also sends that same row to the tenant's result topic (ADR 0073).
 */
const COPY_PAYLOAD = `left(v.entry, -1) || ',"hash":"' || v.hash || '"' || coalesce(',"traceId":"' || v.trace_id || '"', '') || '}'`;

/**
 * The entries, the heads' moves and (when a topic is given) the entries' topic copies in one
 * statement; every row count is checked. The copies read the entries' parameters again (one
 * unnest, in the rows' order, so they take outbox positions in chain order) with the writers'
 * trace contexts beside them.
 */
export async function insertAndMoveHeads(tx: Tx, rows: JournalRow[], heads: readonly LockedHead[], copies?: { topic: string }): Promise<void> {
  const u = unnestOf(JOURNAL_COLUMNS, rows);
  const n = u.params.length;
  const traces = copies && rows.some((r) => r.trace) ? rows.map((r) => (r.trace ? JSON.stringify(r.trace) : null)) : undefined;
  const queue = copies
    ? outboxInsertFrom({
        from: `unnest(${['run_id', 'tenant', 'entry', 'hash', 'trace_id', 'final_decision_id'].map(u.ref).join(', ')}${traces ? `, $${n + 5}::jsonb[]` : ''})
               AS v(run_id, tenant, entry, hash, trace_id, final_decision_id${traces ? ', trace_context' : ''})`,
        topic: `$${n + 4}::text`,
        key: 'v.run_id',
        payload: COPY_PAYLOAD,
        traceContext: traces ? 'v.trace_context' : undefined,
        resultTenant: 'CASE WHEN v.final_decision_id IS NOT NULL THEN v.tenant END',
      })
    : undefined;
  const [done] = await tx.$queryRawUnsafe<{ inserted: number; moved: number; queued: number }[]>(
    `WITH inserted AS (INSERT INTO journal (${u.names.join(', ')}) SELECT * FROM ${u.sql} RETURNING 1),
          moved AS (UPDATE journal_head h SET last_seq = m.seq, last_hash = m.hash
                    FROM unnest($${n + 1}::int[], $${n + 2}::bigint[], $${n + 3}::text[]) AS m(shard, seq, hash)
                    WHERE h.shard = m.shard RETURNING 1)${queue ? `,
          queued AS (${queue} RETURNING 1)` : ''}
     SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM moved)::int AS moved, ${queue ? '(SELECT count(*) FROM queued)::int' : '0'} AS queued`,
    ...u.params,
    heads.map((h) => h.shard),
    heads.map((h) => h.lastSeq.toString()),
    heads.map((h) => h.lastHash),
    ...(copies ? [copies.topic] : []),
    ...(traces ? [traces] : []),
  );
  if (done.inserted !== rows.length) throw new Error(`inserted ${done.inserted} of ${rows.length} rows into journal`);
  if (done.moved !== heads.length) throw new Error(`journal heads moved: ${done.moved} of ${heads.length}`);
  if (done.queued !== (copies ? rows.length : 0)) throw new Error(`inserted ${done.queued} of ${copies ? rows.length : 0} journal copies into the outbox`);
}
