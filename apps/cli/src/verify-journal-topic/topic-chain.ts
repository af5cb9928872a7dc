import { GENESIS_HASH } from '@arvis/crypto';
import type { ChainCopy, CheckpointCopy, TopicCollector } from './topic-copy';

export type TopicFindingKind =
  | 'unreadable'
  | 'conflicting_copies'
  | 'unanchored'
  | 'gap'
  | 'changed'
  | 'relinked'
  | 'bad_signature'
  | 'checkpoint_mismatch'
  | 'checkpoint_without_entry';

export interface TopicFinding {
  kind: TopicFindingKind;
  chain: string;
  /** The seq the finding names (null only for an unreadable message, named by its position). */
  journalSeq: string | null;
  message: string;
}

export interface TopicChainSummary {
  chain: string;
  entries: number;
  firstSeq: string | null;
  lastSeq: string | null;
  /** 'genesis' when seq 1 is on the topic, else the checkpoint the walk starts from. */
  anchor: string | null;
  checkpoints: number;
  /** Highest seq signed by a checkpoint that matches the recomputed chain, with no break before it. */
  signedThrough: string | null;
  /** Entries past the last matching checkpoint: linked, not yet signed. */
  unsigned: number;
  /** Hash of every walked seq, as the chain on the topic says (for --against-topic). */
  hashes: Map<bigint, string>;
  /** Valid checkpoints by seq (for --against-topic). */
  signed: Map<bigint, CheckpointCopy>;
}

export interface TopicReport {
  intact: boolean;
  firstBreak: string | null;
  records: number;
  duplicates: number;
  chains: TopicChainSummary[];
  findings: TopicFinding[];
}

/**
 * Recomputes each chain found on the topic and checks every checkpoint against it. Retention may
 * have removed the oldest records: when seq 1 is not there, the walk anchors on the first
 * checkpoint whose signature verifies, and starts at the seq after it (docs/journal-topic.md).
 */
export function checkTopicChains(collected: TopicCollector): TopicReport {
  const findings: TopicFinding[] = collected.unreadable.map((u) => ({
    kind: 'unreadable' as const,
    chain: '',
    journalSeq: null,
    message: `unreadable record at partition ${u.at.partition} offset ${u.at.offset}: ${u.detail}`,
  }));
  for (const c of collected.conflicts) findings.push({ kind: 'conflicting_copies', chain: c.chain, journalSeq: c.seq.toString(), message: c.message });
  const chains = [...collected.chains.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, copy]) => walkChain(name, copy, findings));
  findings.sort(bySeq);
  return {
    intact: findings.length === 0,
    firstBreak: findings[0]?.message ?? null,
    records: collected.records,
    duplicates: collected.duplicates,
    chains,
    findings,
  };
}

function bySeq(a: TopicFinding, b: TopicFinding): number {
  if (a.journalSeq === null || b.journalSeq === null) return a.journalSeq === null ? (b.journalSeq === null ? 0 : -1) : 1;
  const d = BigInt(a.journalSeq) - BigInt(b.journalSeq);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

function walkChain(chain: string, copy: ChainCopy, findings: TopicFinding[]): TopicChainSummary {
  const add = (kind: TopicFindingKind, seq: bigint, message: string) => findings.push({ kind, chain, journalSeq: seq.toString(), message });
  const seqs = [...copy.entries.keys()].sort((a, b) => (a < b ? -1 : 1));
  const valid = copy.checkpoints.filter((c) => c.signatureProblem === null).sort((a, b) => (BigInt(a.checkpoint.seq) < BigInt(b.checkpoint.seq) ? -1 : 1));
  for (const c of copy.checkpoints) {
    if (c.signatureProblem !== null) add('bad_signature', BigInt(c.checkpoint.seq), `checkpoint ${chain}@${c.checkpoint.seq} at partition ${c.at.partition} offset ${c.at.offset}: ${c.signatureProblem}`);
  }
  const first = seqs[0];
  const last = seqs[seqs.length - 1];
  const anchorCheckpoint = first === undefined || first === 1n ? undefined : valid.find((c) => BigInt(c.checkpoint.seq) >= first - 1n);
  const summary = (anchor: string | null, hashes = new Map<bigint, string>()): TopicChainSummary => ({
    chain, entries: seqs.length, firstSeq: first?.toString() ?? null, lastSeq: last?.toString() ?? null, anchor,
    checkpoints: copy.checkpoints.length, signedThrough: null, unsigned: 0, hashes, signed: new Map(valid.map((c) => [BigInt(c.checkpoint.seq), c])),
  });
  if (first === undefined) {
    for (const c of valid) add('checkpoint_without_entry', BigInt(c.checkpoint.seq), `checkpoint ${chain}@${c.checkpoint.seq} signs entries that are not on the topic`);
    return summary(null);
  }
  if (first !== 1n && !anchorCheckpoint) {
    add('unanchored', first, `the earliest entry of chain ${chain} on the topic is journal_seq ${first} (older ones expired) and no signed checkpoint follows it to anchor on`);
    return summary(null);
  }
  const start = anchorCheckpoint ? BigInt(anchorCheckpoint.checkpoint.seq) : 0n;
  const hashes = linkFrom(copy, seqs, start, anchorCheckpoint?.checkpoint.hash ?? GENESIS_HASH, add);
  const result = summary(anchorCheckpoint ? `checkpoint ${chain}@${start}` : 'genesis', hashes);
  checkCheckpoints(chain, valid, start, hashes, add);
  const firstBreak = findings.filter((f) => f.chain === chain && f.journalSeq !== null).reduce<bigint | null>((m, f) => (m === null || BigInt(f.journalSeq!) < m ? BigInt(f.journalSeq!) : m), null);
  const matching = valid.filter((c) => BigInt(c.checkpoint.seq) >= start && hashes.get(BigInt(c.checkpoint.seq)) === c.checkpoint.hash && (firstBreak === null || BigInt(c.checkpoint.seq) < firstBreak));
  const through = matching.length > 0 ? BigInt(matching[matching.length - 1].checkpoint.seq) : null;
  result.signedThrough = through?.toString() ?? null;
  result.unsigned = seqs.filter((s) => s > (through ?? start)).length;
  return result;
}

/** Walks seq start+1..last: gaps, hashes that do not recompute, links that do not hold. */
function linkFrom(copy: ChainCopy, seqs: bigint[], start: bigint, anchorHash: string, add: (k: TopicFindingKind, s: bigint, m: string) => void): Map<bigint, string> {
  const hashes = new Map<bigint, string>([[start, anchorHash]]);
  let expected = start + 1n;
  let prevHash: string | null = anchorHash;
  for (const seq of seqs) {
    if (seq <= start) continue;
    const e = copy.entries.get(seq)!;
    if (seq !== expected) {
      add('gap', expected, `gap: journal_seq ${expected === seq - 1n ? expected : `${expected}..${seq - 1n}`} missing from the topic`);
      prevHash = null;
    }
    if (e.hashProblem !== null) add('changed', seq, `chain broken at journal_seq ${seq} (partition ${e.at.partition} offset ${e.at.offset}): ${e.hashProblem}`);
    else if (prevHash !== null && e.prevHash !== prevHash) add('relinked', seq, `prevHash of journal_seq ${seq} is not the hash of ${seq - 1n} (partition ${e.at.partition} offset ${e.at.offset})`);
    hashes.set(seq, e.hash);
    prevHash = e.hash;
    expected = seq + 1n;
  }
  return hashes;
}

function checkCheckpoints(chain: string, valid: CheckpointCopy[], start: bigint, hashes: Map<bigint, string>, add: (k: TopicFindingKind, s: bigint, m: string) => void): void {
  for (const c of valid) {
    const seq = BigInt(c.checkpoint.seq);
    if (seq < start) continue; // before the anchor: nothing left on the topic to check it against
    const hash = hashes.get(seq);
    if (hash === undefined) add('checkpoint_without_entry', seq, `checkpoint ${chain}@${seq} signs journal_seq ${seq}, which is not on the topic`);
    else if (hash !== c.checkpoint.hash) add('checkpoint_mismatch', seq, `checkpoint ${chain}@${seq} (signed by ${c.checkpoint.signature.keyId}) does not match the recomputed chain at journal_seq ${seq}`);
  }
}
