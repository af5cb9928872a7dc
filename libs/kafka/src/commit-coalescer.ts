/** A consumer offset to commit: the next offset to read of one partition. */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

/**
 * Gathers a consumer's offset commits: a quiet slice's offset waits up to `intervalMs` and goes
 * out in one OffsetCommit with every other partition's (ADR 0058). Under a trickle every slice
 * is one message, so committing each one cost the broker an OffsetCommit per decision per
 * service. Nothing is lost by the wait: the slice's transaction has committed and handlers are
 * idempotent per message, so a crash before the commit only delivers those messages again.
 * Commits go out in order (one at a time), so a partition's committed offset never moves back.
 */
export class CommitCoalescer {
  private pending = new Map<string, PartitionOffset>();
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly commit: (offsets: PartitionOffset[]) => Promise<void>,
    private readonly intervalMs: number,
    /** A deferred commit that failed (a rebalance, the broker away): later commits supersede it. */
    private readonly onDeferredFailure: (e: Error) => void,
  ) {}

  /** Commits this offset now, with everything waiting. */
  async now(offset: PartitionOffset): Promise<void> {
    this.put(offset);
    await this.flush();
  }

  /** Commits this offset within the interval (at once when the interval is 0). */
  async later(offset: PartitionOffset): Promise<void> {
    if (this.intervalMs === 0) return this.now(offset);
    this.put(offset);
    this.timer ??= setTimeout(() => void this.flush().catch((e: Error) => this.onDeferredFailure(e)), this.intervalMs);
  }

  /** Everything waiting, committed now (before the consumer leaves, and after a slice that must not wait). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const offsets = [...this.pending.values()];
    this.pending = new Map();
    const sent = this.chain.then(() => (offsets.length > 0 ? this.commit(offsets) : undefined));
    this.chain = sent.catch(() => undefined);
    return sent;
  }

  private put(o: PartitionOffset): void {
    this.pending.set(`${o.topic}|${o.partition}`, o);
  }
}
