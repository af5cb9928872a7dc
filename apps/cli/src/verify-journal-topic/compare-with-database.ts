import { MAIN_JOURNAL_CHAIN } from '@arvis/contracts';
import type { Pool } from 'pg';
import { ChainWalker, type ChainFinding, type JournalHeadRow } from '../verify-journal/chain-walker';
import { JOURNAL_ROW_COLUMNS, type JournalRow } from '../verify-journal/journal-row';
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
export async function compareWithDatabase(db: Pool, topic: TopicChainSummary | undefined, batchSize = 1000): Promise<DatabaseComparison> {
  const client = await db.connect();
  const findings: DatabaseFinding[] = [];
  const add = (f: DatabaseFinding) => void (findings.length < MAX_FINDINGS && findings.push(f));
  let checkpointsCompared = 0;
  let topicCopiesCompared = 0;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const walker = new ChainWalker(MAX_FINDINGS);
    for (let after = '0'; ; ) {
      const { rows } = await client.query<JournalRow>(
        `SELECT ${JOURNAL_ROW_COLUMNS} FROM journal WHERE journal_seq > $1::bigint ORDER BY journal.journal_seq LIMIT $2`,
        [after, batchSize],
      );
      for (const row of rows) {
        walker.push(row);
        const seq = BigInt(row.journal_seq);
        if (row.chain !== MAIN_JOURNAL_CHAIN || !topic) continue;
        const copy = topic.hashes.get(seq);
        if (copy !== undefined) {
          topicCopiesCompared++;
          if (copy !== row.hash) add({ kind: 'differs_from_topic', journalSeq: row.journal_seq, message: `journal_seq ${seq}: the database's row differs from the topic's copy${signedNote(topic, seq)} (row rewritten)` });
        }
        const signed = topic.signed.get(seq);
        if (signed) {
          checkpointsCompared++;
          if (signed.checkpoint.hash !== row.hash) add({ kind: 'checkpoint_mismatch', journalSeq: row.journal_seq, message: `journal_seq ${seq}: the database's hash differs from checkpoint ${signed.checkpoint.chain}@${seq} signed by ${signed.checkpoint.signature.keyId}` });
        }
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1].journal_seq;
    }
    const head = (await client.query<JournalHeadRow>('SELECT last_seq::text AS last_seq, last_hash FROM journal_head WHERE id = 1')).rows[0];
    await client.query('COMMIT');
    const chain = walker.finish(head);
    for (const f of chain.findings) add(f);
    behindCheckpoints(topic, BigInt(chain.lastSeq), add);
    findings.sort((a, b) => (BigInt(a.journalSeq) < BigInt(b.journalSeq) ? -1 : BigInt(a.journalSeq) > BigInt(b.journalSeq) ? 1 : 0));
    return { rowsChecked: chain.rowsChecked, lastSeq: chain.lastSeq, checkpointsCompared, topicCopiesCompared, findings };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
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
