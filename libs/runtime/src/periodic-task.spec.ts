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
