import { MAIN_JOURNAL_CHAIN, readJournalTopicRecord, type JournalCheckpoint } from '@arvis/contracts';
import { canonicalJson, chainHash, sha256Hex, verifyCanonicalSignature, type VerificationKeyring } from '@arvis/crypto';

/** Where a record sits on the topic, for messages an analyst can look up (kcat -p P -o O). */
export interface TopicPosition {
  partition: number;
  offset: string;
}

const where = (p: TopicPosition) => `partition ${p.partition} offset ${p.offset}`;

/** One entry as the topic holds it, reduced to what the checks need (the whole text is not kept). */
export interface EntryCopy {
  seq: bigint;
  prevHash: string;
  hash: string;
  /** Null when the hash recomputes from the record as received; else why not. */
  hashProblem: string | null;
  /** SHA-256 of the record's canonical text: two copies of a seq must be identical. */
  digest: string;
  at: TopicPosition;
}

export interface CheckpointCopy {
  checkpoint: JournalCheckpoint;
  /** Null when the signature verifies against the analyst's keys; else why not. */
  signatureProblem: string | null;
  digest: string;
  at: TopicPosition;
}

export interface Conflict {
  chain: string;
  seq: bigint;
  message: string;
}

/** Per chain: the first copy of every seq, and the distinct checkpoints. */
export interface ChainCopy {
  entries: Map<bigint, EntryCopy>;
  checkpoints: CheckpointCopy[];
}

/**
 * Collects the journal topic, an at-least-once copy: identical copies of a journalSeq are counted
 * and dropped; a copy that differs from the first one is a conflict, named by its seq (one of the
 * two was not written by the journal). Checkpoints are deduplicated the same way.
 */
export class TopicCollector {
  readonly chains = new Map<string, ChainCopy>();
  readonly conflicts: Conflict[] = [];
  readonly unreadable: { at: TopicPosition; detail: string }[] = [];
  records = 0;
  duplicates = 0;

  constructor(private readonly keyring: VerificationKeyring) {}

  add(value: Buffer | null, at: TopicPosition): void {
    this.records++;
    const record = readJournalTopicRecord(value);
    if (record.recordType === 'unreadable') {
      this.unreadable.push({ at, detail: record.detail });
      return;
    }
    const digest = sha256Hex(canonicalJson(record.raw));
    if (record.recordType === 'checkpoint') {
      this.addCheckpoint(record.checkpoint, record.raw, digest, at);
      return;
    }
    const chain = this.chain(typeof record.raw.chain === 'string' ? record.raw.chain : MAIN_JOURNAL_CHAIN);
    const seq = BigInt(record.entry.journalSeq);
    const first = chain.entries.get(seq);
    if (first) {
      if (first.digest === digest) this.duplicates++;
      else this.conflict(record.entry.chain, seq, `journal_seq ${seq}: the copy at ${where(at)} differs from the copy at ${where(first.at)} (a forged or altered record)`);
      return;
    }
    const { hash, ...unhashed } = record.raw;
    chain.entries.set(seq, { seq, prevHash: record.entry.prevHash, hash: String(hash), hashProblem: hashProblem(record.entry.prevHash, unhashed, String(hash)), digest, at });
  }

  private addCheckpoint(checkpoint: JournalCheckpoint, raw: Record<string, unknown>, digest: string, at: TopicPosition): void {
    const chain = this.chain(checkpoint.chain);
    const same = chain.checkpoints.find((c) => c.checkpoint.seq === checkpoint.seq);
    if (same?.digest === digest) {
      this.duplicates++;
      return;
    }
    const verdict = verifyCanonicalSignature(raw, this.keyring);
    chain.checkpoints.push({ checkpoint, signatureProblem: verdict.ok ? null : verdict.detail, digest, at });
  }

  private conflict(chain: string, seq: bigint, message: string): void {
    this.conflicts.push({ chain, seq, message });
  }

  private chain(name: string): ChainCopy {
    let c = this.chains.get(name);
    if (!c) this.chains.set(name, (c = { entries: new Map(), checkpoints: [] }));
    return c;
  }
}

function hashProblem(prevHash: string, unhashed: Record<string, unknown>, hash: string): string | null {
  try {
    return chainHash(prevHash, unhashed) === hash ? null : 'hash does not recompute (record changed)';
  } catch (e) {
    return `hash does not recompute: ${(e as Error).message}`;
  }
}
