import { MAIN_JOURNAL_CHAIN } from '@arvis/contracts';
import type { Pool, PoolClient } from 'pg';
import { ChainWalker, type ChainFinding, type JournalHeadRow } from '../verify-journal/chain-walker';
import { JOURNAL_ROW_COLUMNS, type JournalRow } from '../verify-journal/journal-row';
import { chainsOf } from '../verify-journal/retention-horizon';
import type { TopicChainSummary } from './topic-chain';

export interface DatabaseFinding {
  kind: ChainFinding['kind'] | 'checkpoint_mismatch' | 'differs_from_topic' | 'behind_checkpoint';
  journalSeq: string;
  message: string;
}

export interface DatabaseComparison {
  rowsChecked: number;
  lastSeq: string;
  checkpointsCompared: number;
  topicCopiesCompared: number;
  findings: DatabaseFinding[];
}

const MAX_FINDINGS = 100;

/**
 * Compares the database's journal with the topic (ADR 0026): every row's hash with the signed
 * checkpoint at its seq and with the topic's copy of that entry, plus the database's own chain
 * walk. A rewrite that keeps the database self-consistent still differs from what was signed and
 * published before it; the first such seq is the first bad one. One REPEATABLE READ snapshot.
 */
export async function compareWithDatabase(db: Pool, topics: readonly TopicChainSummary[], batchSize = 1000): Promise<DatabaseComparison> {
  const client = await db.connect();
  const findings: DatabaseFinding[] = [];
  const add = (f: DatabaseFinding) => void (findings.length < MAX_FINDINGS && findings.push(f));
  const counts = { checkpointsCompared: 0, topicCopiesCompared: 0, rowsChecked: 0 };
  let mainLast = '0';
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Each chain on its own (ADR 0062); findings of a chain other than main name it.
    // The database's chains and any the topic holds besides: a chain removed from the database
    // (rows and head) that was published is a finding, not a silent omission.
    const known = await chainsOf(client);
    for (const chain of [...known, ...topics.map((t) => t.chain).filter((c) => !known.includes(c))]) {
      const named = (f: DatabaseFinding) => add(chain === MAIN_JOURNAL_CHAIN ? f : { ...f, message: `chain ${chain}: ${f.message}` });
      const last = await compareChain(client, chain, topics.find((t) => t.chain === chain), batchSize, named, counts);
      if (chain === MAIN_JOURNAL_CHAIN) mainLast = last;
    }
    await client.query('COMMIT');
    findings.sort((a, b) => (BigInt(a.journalSeq) < BigInt(b.journalSeq) ? -1 : BigInt(a.journalSeq) > BigInt(b.journalSeq) ? 1 : 0));
    return { rowsChecked: counts.rowsChecked, lastSeq: mainLast, checkpointsCompared: counts.checkpointsCompared, topicCopiesCompared: counts.topicCopiesCompared, findings };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** One chain's rows against its head, its topic copies and its checkpoints; its last seq. */
async function compareChain(
  client: PoolClient,
  chain: string,
  topic: TopicChainSummary | undefined,
  batchSize: number,
  add: (f: DatabaseFinding) => void,
  counts: { checkpointsCompared: number; topicCopiesCompared: number; rowsChecked: number },
): Promise<string> {
  const walker = new ChainWalker(MAX_FINDINGS);
  for (let after = '0'; ; ) {
    const { rows } = await client.query<JournalRow>(
      `SELECT ${JOURNAL_ROW_COLUMNS} FROM journal WHERE chain = $1 AND journal_seq > $2::bigint ORDER BY journal.journal_seq LIMIT $3`,
      [chain, after, batchSize],
    );
    for (const row of rows) {
      walker.push(row);
      const seq = BigInt(row.journal_seq);
      if (!topic) continue;
      const copy = topic.hashes.get(seq);
      if (copy !== undefined) {
        counts.topicCopiesCompared++;
        if (copy !== row.hash) add({ kind: 'differs_from_topic', journalSeq: row.journal_seq, message: `journal_seq ${seq}: the database's row differs from the topic's copy${signedNote(topic, seq)} (row rewritten)` });
      }
      const signed = topic.signed.get(seq);
      if (signed) {
        counts.checkpointsCompared++;
        if (signed.checkpoint.hash !== row.hash) add({ kind: 'checkpoint_mismatch', journalSeq: row.journal_seq, message: `journal_seq ${seq}: the database's hash differs from checkpoint ${signed.checkpoint.chain}@${seq} signed by ${signed.checkpoint.signature.keyId}` });
      }
    }
    if (rows.length < batchSize) break;
    after = rows[rows.length - 1].journal_seq;
  }
  const head = (await client.query<JournalHeadRow>('SELECT last_seq::text AS last_seq, last_hash FROM journal_head WHERE chain = $1', [chain])).rows[0];
  const summary = walker.finish(head);
  for (const f of summary.findings) add(f);
  behindCheckpoints(topic, BigInt(summary.lastSeq), add);
  counts.rowsChecked += summary.rowsChecked;
  return summary.lastSeq;
}

function signedNote(topic: TopicChainSummary, seq: bigint): string {
  return topic.signedThrough !== null && seq <= BigInt(topic.signedThrough) ? `, which checkpoint ${topic.chain}@${topic.signedThrough} signs` : ', not yet signed by a checkpoint';
}

/** A checkpoint past the database's last row: rows it signed are gone (truncated). */
function behindCheckpoints(topic: TopicChainSummary | undefined, lastSeq: bigint, add: (f: DatabaseFinding) => void): void {
  for (const seq of topic?.signed.keys() ?? []) {
    if (seq > lastSeq) add({ kind: 'behind_checkpoint', journalSeq: (lastSeq + 1n).toString(), message: `checkpoint ${topic!.chain}@${seq} signs journal_seq ${seq} but the database ends at ${lastSeq} (rows removed)` });
  }
}
