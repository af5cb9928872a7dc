import type { Admin } from 'kafkajs';

/** What one check knows of a topic: where this member's next fetches start, and the broker's log ends. */
export interface TurnView {
  /** This member's partitions of the topic (its group assignment). */
  assigned: readonly number[];
  /** The partition asking (-1: none of this topic); it is never waiting on itself. */
  self: number;
  /** Partitions whose batch of this round is being handled: they are not waiting for a fetch. */
  busy: ReadonlySet<number>;
  /** Where this member's next fetch starts per partition (after its last resolved message, else the committed offset); absent: unknown. */
  nextFetch: ReadonlyMap<number, bigint>;
  /** The broker's log end offset per partition. */
  highs: ReadonlyMap<number, bigint>;
}

/**
 * The partitions whose messages wait for kafkajs's next fetch, with how many: not busy in this
 * round, with messages on the broker at or after where this member's next fetch of them starts.
 * A partition of unknown log end counts as waiting with 1 (yielding too often only costs a fetch).
 */
export function waitingPartitions(v: TurnView): { partition: number; waiting: bigint }[] {
  return v.assigned.flatMap((partition) => {
    if (partition === v.self || v.busy.has(partition)) return [];
    const high = v.highs.get(partition);
    const waiting = high === undefined ? 1n : high - (v.nextFetch.get(partition) ?? 0n);
    return waiting > 0n ? [{ partition, waiting }] : [];
  });
}

/**
 * `new`: a partition has at most `few` messages waiting (it was idle and something arrived: it gets
 * its turn after one slice). `backlog`: only partitions with more are waiting (they get a turn once
 * the batch has held the round for the budget). `none`: nobody waits.
 */
export type Waiting = 'none' | 'backlog' | 'new';

/**
 * Tells a batch that holds the fetch round whether any other partition of this member has messages
 * waiting for the next fetch (ADR 0046), before each of its slices after the first, and how many. Two ListOffsets
 * per assigned topic per question (latest and earliest, as kafkajs's admin asks), and the group's
 * committed offsets for partitions this member has not fetched from since its assignment; no log
 * data is read. A question that fails counts as `new`: the batch yields, as in ADR 0042.
 */
export class TurnKeeper {
  private assignment = new Map<string, number[]>();
  private readonly nextFetch = new Map<string, Map<number, bigint>>();
  private readonly busy = new Map<string, Set<number>>();
  private connected?: Promise<void>;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    /** At most this many messages waiting on a partition count as `new` (the sizer's first slice). */
    private readonly few: bigint,
  ) {}

  /** A new generation: positions from before it may be stale (another member may have moved them). */
  assign(assignment: Record<string, number[]>): void {
    this.assignment = new Map(Object.entries(assignment));
    this.nextFetch.clear();
  }

  /** A batch of `topic`/`partition` is being handled: the partition does not wait for a fetch. */
  begin(topic: string, partition: number): void {
    this.of(this.busy, topic, () => new Set<number>()).add(partition);
  }

  /**
   * Its batch ended; kafkajs's next fetch of it starts at `next` (after the last resolved message).
   * A batch that yielded with a rest leaves its partition waiting if the rest is still on the broker.
   */
  end(topic: string, partition: number, next: bigint): void {
    this.busy.get(topic)?.delete(partition);
    this.of(this.nextFetch, topic, () => new Map<number, bigint>()).set(partition, next);
  }

  /** Whether a partition other than `topic`/`self`, of any topic assigned to this member, waits. */
  async othersWaiting(topic: string, self: number): Promise<Waiting> {
    let backlog = false;
    try {
      for (const [t, assigned] of this.assignment) {
        const me = t === topic ? self : -1;
        if (assigned.every((p) => p === me)) continue;
        this.connected ??= this.admin.connect();
        await this.connected;
        const nextFetch = this.of(this.nextFetch, t, () => new Map<number, bigint>());
        if (assigned.some((p) => p !== me && !nextFetch.has(p))) await this.learnCommitted(t, nextFetch);
        const highs = new Map((await this.admin.fetchTopicOffsets(t)).map((o) => [o.partition, BigInt(o.high)]));
        for (const { waiting } of waitingPartitions({ assigned, self: me, busy: this.busy.get(t) ?? new Set(), nextFetch, highs })) {
          if (waiting <= this.few) return 'new';
          backlog = true;
        }
      }
      return backlog ? 'backlog' : 'none';
    } catch {
      this.connected = undefined;
      return 'new';
    }
  }

  async close(): Promise<void> {
    if (this.connected) await this.admin.disconnect().catch(() => undefined);
  }

  /** Committed offsets stand for the positions of partitions not fetched from yet (-1: none, so 0). */
  private async learnCommitted(topic: string, nextFetch: Map<number, bigint>): Promise<void> {
    const [committed] = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [topic] });
    for (const { partition, offset } of committed?.partitions ?? []) {
      if (!nextFetch.has(partition)) nextFetch.set(partition, BigInt(offset) < 0n ? 0n : BigInt(offset));
    }
  }

  private of<V>(map: Map<string, V>, topic: string, create: () => V): V {
    let v = map.get(topic);
    if (v === undefined) map.set(topic, (v = create()));
    return v;
  }
}
