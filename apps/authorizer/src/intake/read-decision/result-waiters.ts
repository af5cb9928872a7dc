/** A decision a requester asks about: ids are unique only within a tenant (ADR 0061). */
export interface DecisionKey {
  tenant: string;
  decisionId: string;
}

/** What one lookup found for one key; undefined for a key it found nothing about yet. */
export type Found<R> = Map<string, R>;

export const keyOf = (k: DecisionKey) => `${k.tenant}\u0000${k.decisionId}`;

interface Waiter<R> {
  key: DecisionKey;
  settled: (r: R) => boolean;
  resolve: (found: R | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * One poller for every long poll of the process (`GET /decisions/{id}?waitS=`, ADR 0072): while
 * anyone waits, one lookup every `pollMs` asks about every waited key at once; with nobody
 * waiting there is no timer and no query. A waiter is answered as soon as a lookup returns
 * something for its key that it calls settled, or with the last thing found (or nothing) at its
 * deadline.
 * `lookup` is the one statement (for the keys given, at most one row per key); pure otherwise,
 * so it is unit-tested with a plain function.
 */
export class ResultWaiters<R> {
  private readonly waiting = new Map<string, Set<Waiter<R>>>();
  private readonly last = new Map<string, R>();
  private tick?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;
  /** Lookups run so far (one per tick with waiters, whatever their number). */
  lookups = 0;

  constructor(
    private readonly lookup: (keys: DecisionKey[]) => Promise<Found<R>>,
    private readonly opts: { pollMs: number; maxWaiters: number; onError?: (e: Error) => void },
  ) {}

  get size(): number {
    let n = 0;
    for (const s of this.waiting.values()) n += s.size;
    return n;
  }

  /** Full: the caller answers at once with what it has instead of waiting (bounded memory). */
  get full(): boolean {
    return this.size >= this.opts.maxWaiters;
  }

  /** Resolves with the first result `settled` accepts, or at `waitMs` with the last result seen (undefined: none). */
  wait(key: DecisionKey, waitMs: number, settled: (r: R) => boolean): Promise<R | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const k = keyOf(key);
      const set = this.waiting.get(k) ?? new Set<Waiter<R>>();
      const waiter: Waiter<R> = {
        key,
        settled,
        resolve,
        timer: setTimeout(() => this.settle(k, waiter, this.last.get(k)), waitMs),
      };
      set.add(waiter);
      this.waiting.set(k, set);
      this.schedule();
    });
  }

  private settle(k: string, waiter: Waiter<R>, found: R | undefined): void {
    clearTimeout(waiter.timer);
    const set = this.waiting.get(k);
    if (!set?.delete(waiter)) return;
    if (set.size === 0) {
      this.waiting.delete(k);
      this.last.delete(k);
    }
    waiter.resolve(found);
  }

  private schedule(): void {
    if (this.tick || this.stopped || this.waiting.size === 0) return;
    this.tick = setTimeout(() => {
      this.tick = undefined;
      void this.poll();
    }, this.opts.pollMs);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const keys = [...this.waiting.values()].map((s) => s.values().next().value!.key);
      if (keys.length === 0) return;
      this.lookups++;
      const found = await this.lookup(keys);
      for (const [k, r] of found) {
        const set = this.waiting.get(k);
        if (!set) continue;
        this.last.set(k, r);
        for (const w of [...set]) if (w.settled(r)) this.settle(k, w, r);
      }
    } catch (e) {
      // The next tick tries again; the waiters' deadlines still hold.
      this.opts.onError?.(e as Error);
    } finally {
      this.polling = false;
      this.schedule();
    }
  }

  /** Answers every waiter with what was last seen and stops polling. */
  stop(): void {
    this.stopped = true;
    if (this.tick) clearTimeout(this.tick);
    for (const [k, set] of [...this.waiting]) for (const w of [...set]) this.settle(k, w, this.last.get(k));
  }
}
