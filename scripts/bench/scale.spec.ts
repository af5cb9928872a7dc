import type { AppenderResult } from './journal-appender';
import { journalFigures, lockWaitPercent } from './scale';

const appender = (transactions: number, batch: number, elapsedMs: number, txMs: number[]): AppenderResult => ({ entries: transactions * batch, transactions, elapsedMs, txMs });

describe('bench scale phase figures', () => {
  it('adds the appenders up and divides by the longest appender window', () => {
    const j = journalFigures(2, 32, [appender(100, 32, 10_000, [5]), appender(50, 32, 12_500, [7])], 90, { appender: 1, postgres: 2 });
    expect(j).toMatchObject({ processes: 2, batch: 32, seconds: 12.5, entries: 4800, transactions: 150, entriesPerS: 384, transactionsPerS: 12 });
  });

  it('takes the transaction percentiles over every transaction of every appender', () => {
    const fast = Array.from({ length: 98 }, () => 2);
    const j = journalFigures(2, 1, [appender(98, 1, 1000, fast), appender(2, 1, 1000, [40, 90])], 50, {});
    expect([j.p50Ms, j.p99Ms]).toEqual([2, 40]);
  });

  it('gives the share of appenders waiting on a lock as the mean over the samples', () => {
    expect(lockWaitPercent([0, 1, 2, 3], 4)).toBe(37.5);
    expect(lockWaitPercent([], 4)).toBeNaN();
  });
});
