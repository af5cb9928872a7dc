/**
 * How many messages of a partition's fetched batch the next slice takes. kafkajs fetches again only
 * after every partition's slice of the last fetch is done, so one long slice delays the new
 * messages of every other partition. The size is therefore bounded by time: it starts small,
 * doubles while full slices finish within `targetMs` (a backlog is amortised over big
 * transactions), and shrinks in proportion when a slice overruns it (a slow machine, slow tools),
 * never below the initial size: a slice's fixed cost (its transactions) must not shrink it to one
 * message at a time on a machine where even small slices overrun the target.
 */
export class SliceSizer {
  private readonly sizes = new Map<string, number>();
  /** A partition's first slice. */
  readonly initial: number;

  constructor(
    private readonly max: number,
    private readonly targetMs: number,
    initial = 32,
  ) {
    this.initial = Math.max(1, Math.min(max, initial));
  }

  /** Size of the next slice of `key` (a topic-partition). */
  next(key: string): number {
    return this.sizes.get(key) ?? this.initial;
  }

  /** A slice of `size` messages of `key` took `ms` (handler and offset commit). */
  record(key: string, size: number, ms: number): void {
    const current = this.next(key);
    if (ms > this.targetMs) {
      this.sizes.set(key, Math.max(this.initial, Math.min(current, Math.floor((size * this.targetMs) / ms))));
    } else if (size >= current) {
      this.sizes.set(key, Math.min(this.max, current * 2));
    }
  }
}
