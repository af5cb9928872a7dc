import type { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-task';

const log = { warn: () => {} } as unknown as Logger;

// ADR 0076: work due before the next tick is waited for by one timer, not by polling faster.
describe('PeriodicTask.runIn', () => {
  it('runs one pass at the sooner of the wake-ups asked for, between the ticks', async () => {
    const passes: number[] = [];
    const started = Date.now();
    const task = new PeriodicTask('t', 60_000, async () => void passes.push(Date.now() - started), log);
    task.start();
    task.runIn(200);
    task.runIn(50);
    task.runIn(100); // later than the one armed: ignored
    await new Promise((r) => setTimeout(r, 300));
    await task.stop();
    expect(passes).toHaveLength(1);
    expect(passes[0]).toBeGreaterThanOrEqual(45);
    expect(passes[0]).toBeLessThan(200);
  });

  it('arms nothing once stopped', async () => {
    let passes = 0;
    const task = new PeriodicTask('t', 60_000, async () => void passes++, log);
    task.start();
    await task.stop();
    task.runIn(10);
    await new Promise((r) => setTimeout(r, 50));
    expect(passes).toBe(0);
  });
});

// ADR 0059: an idle task covered by a wake-up signal slows down, and the signal brings it back.
describe('PeriodicTask with an idle back-off', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_700_000_000_000 }));
  afterEach(() => jest.useRealTimers());

  /** Passes at the fake clock's ms since start; `busy` decides each pass's outcome. */
  function task(busy: () => boolean) {
    const at: number[] = [];
    const t0 = Date.now();
    const t = new PeriodicTask('t', 1000, async () => (at.push(Date.now() - t0), !busy()), log, { maxMs: 8000, idle: (idle) => idle === true });
    return { t, at };
  }

  it('doubles the period after each idle pass, up to its bound', async () => {
    const { t, at } = task(() => false);
    t.start();
    await jest.advanceTimersByTimeAsync(40_000);
    await t.stop();
    expect(at).toEqual([1000, 3000, 7000, 15_000, 23_000, 31_000, 39_000]);
  });

  it('is back at its own period at a poke, and stays there while passes find work', async () => {
    let work = false;
    const { t, at } = task(() => work);
    t.start();
    await jest.advanceTimersByTimeAsync(15_000); // ticks at 1, 3, 7 and 15 s; the next due at 23 s
    work = true;
    t.poke();
    await jest.advanceTimersByTimeAsync(3_000);
    await t.stop();
    expect(at).toEqual([1000, 3000, 7000, 15_000, 16_000, 17_000, 18_000]);
  });

  it('keeps a plain interval without a back-off', async () => {
    const at: number[] = [];
    const t0 = Date.now();
    const t = new PeriodicTask('t', 1000, async () => void at.push(Date.now() - t0), log);
    t.start();
    t.poke();
    await jest.advanceTimersByTimeAsync(3_000);
    await t.stop();
    expect(at).toEqual([1000, 2000, 3000]);
  });
});
