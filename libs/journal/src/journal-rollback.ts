import { canonicalJson, chainLink } from '@arvis/crypto';
import { MAIN_JOURNAL_CHAIN, readJournalTopicRecord, type JournalEntry } from '@arvis/contracts';
import type { Tx } from '@arvis/persistence';
import { insertAndMoveHeads, type JournalRow } from './append-journal';

/** The newest entry of a chain seen on the journal topic (and the highest seq a checkpoint signed). */
export interface TopicHead {
  chain: string;
  seq: bigint;
  hash: string;
  signedSeq: bigint | null;
}

/** The database's head, and the hash its journal holds at the topic head's seq (null: no such row). */
export interface DatabaseHead {
  chain: string;
  seq: bigint;
  hash: string;
  hashAtTopicSeq: string | null;
}

/**
 * Why a service refuses to work (ADR 0055): the database's journal lacks entries the journal
 * topic holds (`journal_rolled_back`: a restore from an older dump; an operator reconciles), or
 * holds another entry at the topic head's seq (`journal_diverged`: the chains forked; not
 * reconcilable by the API), or the topic could not be read, so no verdict (`journal_topic_unread`).
 */
export type RollbackVerdict =
  | { state: 'consistent' }
  | { state: 'journal_rolled_back' | 'journal_diverged'; chain: string; databaseSeq: string; databaseHash: string; topicSeq: string; topicHash: string; signedSeq: string | null }
  | { state: 'journal_topic_unread'; detail: string };

/** The highest entry of each chain among these journal topic records; checkpoints give `signedSeq`. */
export function topicHeadsOf(values: readonly (Buffer | string | null)[]): Map<string, TopicHead> {
  const heads = new Map<string, TopicHead>();
  const head = (chain: string) => {
    let h = heads.get(chain);
    if (!h) heads.set(chain, (h = { chain, seq: 0n, hash: '', signedSeq: null }));
    return h;
  };
  for (const v of values) {
    const r = readJournalTopicRecord(v);
    if (r.recordType === 'entry') {
      const h = head(r.entry.chain);
      const seq = BigInt(r.entry.journalSeq);
      if (seq > h.seq) Object.assign(h, { seq, hash: r.entry.hash });
    } else if (r.recordType === 'checkpoint') {
      const h = head(r.checkpoint.chain);
      const seq = BigInt(r.checkpoint.seq);
      if (h.signedSeq === null || seq > h.signedSeq) h.signedSeq = seq;
      // A checkpoint past every entry read still says the chain reached that seq.
      if (seq > h.seq) Object.assign(h, { seq, hash: r.checkpoint.hash });
    }
  }
  return heads;
}

/** Compares the database's head with the topic's: the topic may never be ahead of the record. */
export function rollbackVerdict(topic: TopicHead | undefined, db: DatabaseHead): RollbackVerdict {
  if (!topic || topic.seq === 0n) return { state: 'consistent' };
  if (db.hashAtTopicSeq === topic.hash) return { state: 'consistent' };
  const facts = {
    chain: db.chain,
    databaseSeq: db.seq.toString(),
    databaseHash: db.hash,
    topicSeq: topic.seq.toString(),
    topicHash: topic.hash,
    signedSeq: topic.signedSeq === null ? null : topic.signedSeq.toString(),
  };
  return { state: db.hashAtTopicSeq === null && db.seq < topic.seq ? 'journal_rolled_back' : 'journal_diverged', ...facts };
}

/**
 * Every chain's head row and the hash its journal holds at that chain's topic head seq, in one
 * statement (ADR 0062: the guard judges each chain on its own; a chain the topic has not seen is
 * judged at seq 0, which every database holds).
 */
export async function readDatabaseHeads(db: Pick<Tx, '$queryRawUnsafe'>, topicSeqs: ReadonlyMap<string, bigint>): Promise<DatabaseHead[]> {
  const chains = [...topicSeqs.keys()];
  const rows = await db.$queryRawUnsafe<{ chain: string; last_seq: bigint; last_hash: string; at_topic: string | null }[]>(
    `SELECT h.chain, h.last_seq, h.last_hash,
            (SELECT j.hash FROM journal j WHERE j.chain = h.chain AND j.journal_seq = t.seq) AS at_topic
     FROM journal_head h
     LEFT JOIN unnest($1::text[], $2::bigint[]) AS t(chain, seq) ON t.chain = h.chain
     ORDER BY h.shard`,
    chains,
    chains.map((c) => topicSeqs.get(c)!.toString()),
  );
  if (rows.length === 0) throw new Error('journal_head rows missing: run the migrations');
  return rows.map((r) => ({ chain: r.chain ?? MAIN_JOURNAL_CHAIN, seq: BigInt(r.last_seq), hash: r.last_hash, hashAtTopicSeq: r.at_topic }));
}

/** The head of one chain and the hash at `topicSeq` (the main chain unless named). */
export async function readDatabaseHead(db: Pick<Tx, '$queryRawUnsafe'>, topicSeq: bigint, chain: string = MAIN_JOURNAL_CHAIN): Promise<DatabaseHead> {
  const head = (await readDatabaseHeads(db, new Map([[chain, topicSeq]]))).find((h) => h.chain === chain);
  if (!head) throw new Error(`journal_head of chain ${chain} missing: run the migrations`);
  return head;
}

/**
 * The first chain whose database head is behind or off the topic's, else consistent: one verdict
 * over every chain, a chain on the topic that the database lacks counting as rolled back.
 */
export function rollbackVerdictOfChains(topic: ReadonlyMap<string, TopicHead>, db: readonly DatabaseHead[]): RollbackVerdict {
  for (const [chain, t] of topic) {
    const d = db.find((h) => h.chain === chain) ?? { chain, seq: 0n, hash: '', hashAtTopicSeq: null };
    const verdict = rollbackVerdict(t, d);
    if (verdict.state !== 'consistent') return verdict;
  }
  return { state: 'consistent' };
}

/** The entries a restore lost, as the topic holds them, ready to be chained back in order. */
export interface LostEntry {
  seq: bigint;
  entry: JournalEntry;
  /** The hashed text: the record as received, without `hash` and `traceId` (ADR 0028). */
  unhashed: string;
}

export type LostEntries =
  | { ok: true; entries: LostEntry[] }
  | { ok: false; reason: 'conflicting_copies' | 'missing_on_topic' | 'does_not_link' | 'hash_mismatch'; seq: string };

/**
 * The topic's entries of `chain` after `fromSeq` up to `toSeq`, each once (identical copies are
 * one), checked to continue the database's chain: no seq missing, each hash recomputing from the
 * record as received, the first linking to the database's head hash.
 */
export function lostEntriesOf(values: readonly (Buffer | string | null)[], chain: string, from: { seq: bigint; hash: string }, toSeq: bigint): LostEntries {
  const bySeq = new Map<bigint, { entry: JournalEntry; unhashed: string; digest: string }>();
  for (const v of values) {
    const r = readJournalTopicRecord(v);
    if (r.recordType !== 'entry' || r.entry.chain !== chain) continue;
    const seq = BigInt(r.entry.journalSeq);
    if (seq <= from.seq || seq > toSeq) continue;
    const { hash: _hash, traceId: _traceId, ...rest } = r.raw;
    const unhashed = canonicalJson(rest);
    const digest = canonicalJson(r.raw);
    const seen = bySeq.get(seq);
    if (seen && seen.digest !== digest) return { ok: false, reason: 'conflicting_copies', seq: seq.toString() };
    if (!seen) bySeq.set(seq, { entry: r.entry, unhashed, digest });
  }
  const entries: LostEntry[] = [];
  let prev = from.hash;
  for (let seq = from.seq + 1n; seq <= toSeq; seq++) {
    const got = bySeq.get(seq);
    if (!got) return { ok: false, reason: 'missing_on_topic', seq: seq.toString() };
    if (got.entry.prevHash !== prev) return { ok: false, reason: 'does_not_link', seq: seq.toString() };
    const { hash } = chainLink(prev, JSON.parse(got.unhashed) as Record<string, unknown>);
    if (hash !== got.entry.hash) return { ok: false, reason: 'hash_mismatch', seq: seq.toString() };
    entries.push({ seq, entry: got.entry, unhashed: got.unhashed });
    prev = hash;
  }
  return { ok: true, entries };
}

/**
 * Chains the lost entries of one chain back into the journal, as they were (same seqs, same
 * hashes), and moves that chain's head to the last, in one statement, under the head lock; `expected` is the head the
 * entries continue, refused if it moved. Nothing is enqueued: the topic already holds them.
 */
export async function restoreLostEntries(tx: Tx, entries: readonly LostEntry[], expected: { seq: bigint; hash: string }): Promise<boolean> {
  if (entries.length === 0) return false;
  const chain = entries[0].entry.chain;
  const head = await tx.$queryRaw<{ shard: number; last_seq: bigint; last_hash: string }[]>`
    SELECT shard, last_seq, last_hash FROM journal_head WHERE chain = ${chain} FOR UPDATE`;
  if (head.length !== 1 || BigInt(head[0].last_seq) !== expected.seq || head[0].last_hash !== expected.hash) return false;
  const rows: JournalRow[] = entries.map((e) => ({ journalSeq: e.seq, entry: e.entry, unhashed: e.unhashed }));
  const last = entries[entries.length - 1];
  await insertAndMoveHeads(tx, rows, [{ shard: head[0].shard, chain, lastSeq: last.seq, lastHash: last.entry.hash }]);
  return true;
}
