import { GENESIS_HASH } from '@arvis/crypto';
import { checkRowConsistency, checkRowHash, type JournalRow } from './journal-row';

export type ChainFindingKind = 'gap' | 'changed' | 'relinked' | 'inconsistent' | 'head';

export interface ChainFinding {
  kind: ChainFindingKind;
  /** The journal_seq the finding is about (for a gap: the first missing seq). */
  journalSeq: string;
  message: string;
}

export interface JournalHeadRow {
  last_seq: string;
  last_hash: string;
}

export interface ChainSummary {
  rowsChecked: number;
  firstSeq: string | null;
  lastSeq: string;
  lastHash: string;
  findings: ChainFinding[];
  /** Findings beyond those kept (the first ones are the precise ones). */
  findingsDropped: number;
}

/**
 * Walks journal rows in journal_seq order, one at a time, so the verifier can stream the table
 * in batches. Each row is compared with the stored hash of the row before it (not with a
 * recomputed one), so a single changed row yields one finding rather than a cascade.
 */
export class ChainWalker {
  private expected = 1n;
  private prevHash = GENESIS_HASH;
  private firstSeq: string | null = null;
  private rows = 0;
  private readonly findings: ChainFinding[] = [];
  private dropped = 0;

  constructor(private readonly maxFindings = 100) {}

  push(row: JournalRow): void {
    const seq = BigInt(row.journal_seq);
    this.rows++;
    this.firstSeq ??= row.journal_seq;
    // After a gap the predecessor is missing, so the link cannot be judged: the gap is the finding.
    let linkable = true;
    if (seq !== this.expected) {
      linkable = false;
      const last = seq - 1n;
      const missing = last === this.expected ? `journal_seq ${this.expected} missing` : `journal_seq ${this.expected}..${last} missing`;
      this.add('gap', this.expected, `gap: ${missing} (row deleted)`);
    }
    const hashed = checkRowHash(row);
    if (!hashed.ok) {
      this.add('changed', seq, `chain broken at journal_seq ${seq}: ${hashed.detail}`);
    } else if (linkable && row.prev_hash !== this.prevHash) {
      const previous = seq === 1n ? 'the genesis hash' : `the hash of ${seq - 1n}`;
      this.add('relinked', seq, `prev_hash of ${seq} is not ${previous} (reordered or changed)`);
    } else {
      const inconsistent = checkRowConsistency(row, hashed.entry);
      if (inconsistent) this.add('inconsistent', seq, `chain broken at journal_seq ${seq}: ${inconsistent}`);
    }
    this.prevHash = row.hash;
    this.expected = seq + 1n;
  }

  /** Compares the end of the walk with the chain head that appenders advance. */
  finish(head: JournalHeadRow | undefined): ChainSummary {
    const lastSeq = this.expected - 1n;
    if (!head) {
      this.add('head', lastSeq, 'journal_head row missing');
    } else {
      const headSeq = BigInt(head.last_seq);
      const end = lastSeq === 0n ? 'journal is empty' : `journal ends at ${lastSeq}`;
      if (lastSeq < headSeq) this.add('head', lastSeq + 1n, `${end} but head says ${headSeq} (truncated)`);
      else if (lastSeq > headSeq) this.add('head', headSeq + 1n, `${end} but head says ${headSeq} (rows past the head, or head rewound)`);
      else if (head.last_hash !== this.prevHash) {
        this.add('head', lastSeq, `head hash is not the hash of journal_seq ${lastSeq} (last row or head changed)`);
      }
    }
    return {
      rowsChecked: this.rows,
      firstSeq: this.firstSeq,
      lastSeq: lastSeq.toString(),
      lastHash: this.prevHash,
      findings: this.findings,
      findingsDropped: this.dropped,
    };
  }

  private add(kind: ChainFindingKind, seq: bigint, message: string): void {
    if (this.findings.length < this.maxFindings) this.findings.push({ kind, journalSeq: seq.toString(), message });
    else this.dropped++;
  }
}
