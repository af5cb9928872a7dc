import type { Logger } from '@nestjs/common';

/**
 * Idle back-off of a PeriodicTask (ADR 0059): after a pass `idle` judges as finding nothing, the
 * next one waits twice as long, up to `maxMs`; any other pass, or `poke()`, brings the period back
 * to the task's own. Only for work a wake-up signal covers (the caller pokes on it): a deadline
 * read from the database is waited for with `runIn`, never by this.
 */
export interface IdleBackoff {
  maxMs: number;
  idle: (outcome: unknown) => boolean;
}

/**
 * Runs `pass` every `intervalMs`, never two at once; `stop()` waits for the pass in flight, so
 * a shutdown does not cut a transaction in half. For the workers that poll a table.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private wake?: { at: number; timer: NodeJS.Timeout };
  private running?: Promise<unknown>;
  private stopped = false;
  /** With a back-off: the current period and when the next tick is due. */
  private delayMs: number;
  private tickAt = 0;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly log: Logger,
    private readonly backoff?: IdleBackoff,
  ) {
    this.delayMs = intervalMs;
  }

  start({ immediately = false } = {}): void {
    if (immediately) this.tick();
    if (this.backoff) this.scheduleTick(this.intervalMs);
    else this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  private scheduleTick(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.delayMs = delayMs;
    this.tickAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick(true);
    }, delayMs);
  }

  /** `scheduled`: the back-off's own tick, which arms the next one when its pass ends. */
  private tick(scheduled = false): void {
    if (this.running) {
      if (scheduled) this.scheduleTick(this.delayMs);
      return;
    }
    this.running = this.pass()
      .then((outcome) => {
        if (!this.backoff) return;
        const idle = this.backoff.idle(outcome);
        const next = idle ? Math.min(this.delayMs * 2, Math.max(this.backoff.maxMs, this.intervalMs)) : this.intervalMs;
        // A pass outside the schedule (runIn, poke) that found work also brings the period back.
        if (scheduled || (!idle && this.delayMs > this.intervalMs)) this.scheduleTick(next);
      })
      .catch((e: Error) => {
        this.log.warn({ msg: 'pass failed', task: this.name, error: e.message });
        if (this.backoff && scheduled) this.scheduleTick(this.intervalMs);
      })
      .finally(() => (this.running = undefined));
  }

  /** Work may have come (the task's wake-up signal): back to the task's own period if it had slowed down. */
  poke(): void {
    if (!this.backoff || this.stopped) return;
    if (this.delayMs > this.intervalMs && this.tickAt > Date.now() + this.intervalMs) this.scheduleTick(this.intervalMs);
    else this.delayMs = this.intervalMs;
  }

  /**
   * Also one pass in `delayMs` (when sooner than a wake-up already armed): for work known to come
   * due before the next tick, waited for by one timer rather than by polling faster.
   */
  runIn(delayMs: number): void {
    const at = Date.now() + delayMs;
    if (this.stopped || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.tick();
    }, Math.max(0, delayMs));
    timer.unref();
    this.wake = { at, timer };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.wake) clearTimeout(this.wake.timer);
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
