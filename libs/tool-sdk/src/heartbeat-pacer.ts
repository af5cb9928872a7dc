/**
 * When a body's heartbeat is written and where it moves the body's abort time (ADR 0077), in ms
 * since the body started. The start counts as the first write. A heartbeat is written at most
 * once in a third of timeoutMs, one at a time, and none once the cap is reached; the abort time
 * moves only when a write committed, so the stored deadline (now + timeout + grace, database
 * time, written after the heartbeat was issued) is never earlier than the process's own timeout.
 */
export class HeartbeatPacer {
  private lastWriteAt = 0;
  private inFlight = false;
  private closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxRunMs: number,
  ) {}

  get minIntervalMs(): number {
    return Math.max(1, Math.floor(this.timeoutMs / 3));
  }

  /** A heartbeat at `at`: true when it is to be written (the caller then reports written or failed). */
  beat(at: number): boolean {
    if (this.closed || this.inFlight || at - this.lastWriteAt < this.minIntervalMs) return false;
    if (this.abortAt() >= this.maxRunMs) return false;
    this.inFlight = true;
    return true;
  }

  /** The write of the heartbeat issued at `at` committed: the new abort time. */
  written(at: number): number {
    this.inFlight = false;
    this.lastWriteAt = Math.max(this.lastWriteAt, at);
    return this.abortAt();
  }

  failed(): void {
    this.inFlight = false;
  }

  /** The effect is no longer started (recovery closed it): nothing more is written. */
  close(): void {
    this.closed = true;
    this.inFlight = false;
  }

  abortAt(): number {
    return Math.min(this.lastWriteAt + this.timeoutMs, this.maxRunMs);
  }
}
