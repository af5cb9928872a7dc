import type { Logger } from '@nestjs/common';

/**
 * Runs `pass` every `intervalMs`, never two at once; `stop()` waits for the pass in flight, so
 * a shutdown does not cut a transaction in half. For the workers that poll a table.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

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

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
