import type { BodyOutcome } from './run-body';

/**
 * A body's abort timer: fires `timeoutMs` after the start unless a heartbeat moves it (ADR 0077);
 * when it fires the body's signal is aborted and `timedOut` resolves.
 */
export class BodyClock {
  readonly controller = new AbortController();
  readonly timedOut: Promise<BodyOutcome>;
  private readonly started = performance.now();
  private timer?: NodeJS.Timeout;
  private fire: () => void = () => {};
  private done = false;

  constructor(timeoutMs: number) {
    this.timedOut = new Promise<BodyOutcome>((resolve) => {
      this.fire = () => {
        this.controller.abort(new Error('tool_timeout'));
        resolve({ kind: 'timed_out', timeoutMs, latencyMs: this.elapsed() });
      };
    });
    this.timer = setTimeout(this.fire, timeoutMs);
  }

  /** ms since the start. */
  now(): number {
    return performance.now() - this.started;
  }

  elapsed(): number {
    return Math.round(this.now());
  }

  /** The body settled, or its timeout was classified: the timer stops and nothing moves it again. */
  get settled(): boolean {
    return this.done || this.controller.signal.aborted;
  }

  /** Moves the abort to `atMs` since the start (a written heartbeat's), unless it settled. */
  abortAt(atMs: number): void {
    if (this.settled) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.fire, Math.max(0, atMs - this.now()));
  }

  clear(): void {
    this.done = true;
    clearTimeout(this.timer);
  }
}
