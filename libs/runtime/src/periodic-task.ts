import type { Logger } from '@nestjs/common';

/**
 * Runs `pass` every `intervalMs`, never two at once; `stop()` waits for the pass in flight, so
 * a shutdown does not cut a transaction in half. For the workers that poll a table.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private wake?: { at: number; timer: NodeJS.Timeout };
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  start({ immediately = false } = {}): void {
    if (immediately) this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.pass()
      .catch((e: Error) => this.log.warn({ msg: 'pass failed', task: this.name, error: e.message }))
      .finally(() => (this.running = undefined));
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
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
