import { JOURNAL_CHECKPOINT_RECORD_TYPE, MAIN_JOURNAL_CHAIN } from '@arvis/contracts';
import type { TailFilter } from '../cli-args';

/** The fields of a journal topic message that tail filters and prints. */
export interface TailedEntry {
  journalSeq: string;
  kind: string;
  decisionId: string;
  runId: string;
  tenant: string;
  tool: string;
  effectBoundary: string;
  success: boolean;
  reasonCode?: string;
  output?: unknown;
  [field: string]: unknown;
}

/**
 * Reads one journal topic message: an entry, 'checkpoint' for a signed checkpoint (tail skips
 * those; `verify --from-topic` checks them), or null when it is neither.
 */
export function readTailedEntry(value: Buffer | null): TailedEntry | 'checkpoint' | null {
  if (!value) return null;
  let body: unknown;
  try {
    body = JSON.parse(value.toString('utf8'));
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const e = body as Record<string, unknown>;
  if (e.recordType === JOURNAL_CHECKPOINT_RECORD_TYPE) return 'checkpoint';
  if (e.recordType !== undefined) return null;
  const strings = ['journalSeq', 'kind', 'decisionId', 'runId', 'tenant', 'tool', 'effectBoundary'];
  return strings.every((k) => typeof e[k] === 'string') && /^[0-9]+$/.test(e.journalSeq as string) ? (e as TailedEntry) : null;
}

export function matchesFilter(e: TailedEntry, f: TailFilter): boolean {
  return (
    (f.tenant === undefined || e.tenant === f.tenant) &&
    (f.tool === undefined || e.tool === f.tool) &&
    (f.boundary === undefined || e.effectBoundary === f.boundary) &&
    (f.runId === undefined || e.runId === f.runId)
  );
}

/**
 * The topic is an at-least-once copy (the relay may publish a row twice), so entries are
 * deduplicated by (chain, journalSeq), the table's own key (ADR 0062). Seqs are gap-free within
 * a chain, so each chain's set is kept compact: everything at or below its contiguous low-water
 * mark is forgotten.
 */
export class ChainSeqDeduper {
  private readonly chains = new Map<string, SeqDeduper>();

  /** True the first time (chain, seq) is seen; an entry without `chain` is on main. */
  firstTime(chain: unknown, journalSeq: string): boolean {
    const name = typeof chain === 'string' ? chain : MAIN_JOURNAL_CHAIN;
    let d = this.chains.get(name);
    if (!d) this.chains.set(name, (d = new SeqDeduper()));
    return d.firstTime(journalSeq);
  }
}

/** One chain's seqs, each passed once. */
export class SeqDeduper {
  private low = 0n;
  private readonly above = new Set<bigint>();

  /** True the first time a seq is seen. */
  firstTime(journalSeq: string): boolean {
    const seq = BigInt(journalSeq);
    if (seq <= this.low || this.above.has(seq)) return false;
    this.above.add(seq);
    while (this.above.has(this.low + 1n)) this.above.delete(++this.low);
    return true;
  }
}
