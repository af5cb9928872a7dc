import { CommitCoalescer, type PartitionOffset } from './commit-coalescer';

const at = (partition: number, offset: number): PartitionOffset => ({ topic: 't', partition, offset: String(offset) });

describe('CommitCoalescer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function coalescer(intervalMs: number) {
    const commits: PartitionOffset[][] = [];
    const failures: Error[] = [];
    let fail = false;
    const c = new CommitCoalescer(
      async (offsets) => {
        if (fail) throw new Error('rebalance in progress');
        commits.push(offsets);
      },
      intervalMs,
      (e) => failures.push(e),
    );
    return { c, commits, failures, failNext: () => (fail = true) };
  }

  it('sends the quiet slices of every partition within the interval as one commit, each at its latest offset', async () => {
    const { c, commits } = coalescer(250);
    await c.later(at(0, 5));
    await c.later(at(1, 9));
    await c.later(at(0, 7));
    expect(commits).toEqual([]);
    await jest.advanceTimersByTimeAsync(250);
    expect(commits).toEqual([[at(0, 7), at(1, 9)]]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(commits).toHaveLength(1);
  });

  it('commits at once, with what waits, when asked to, and when the interval is 0', async () => {
    const { c, commits } = coalescer(250);
    await c.later(at(1, 3));
    await c.now(at(0, 4));
    expect(commits).toEqual([[at(1, 3), at(0, 4)]]);
    const zero = coalescer(0);
    await zero.c.later(at(2, 1));
    expect(zero.commits).toEqual([[at(2, 1)]]);
  });

  it('flushes what waits before the consumer leaves, and a flush with nothing waiting sends nothing', async () => {
    const { c, commits } = coalescer(10_000);
    await c.flush();
    expect(commits).toEqual([]);
    await c.later(at(0, 2));
    await c.flush();
    expect(commits).toEqual([[at(0, 2)]]);
  });

  it('reports a deferred commit that failed and goes on with the next one; an immediate one throws to its caller', async () => {
    const { c, commits, failures, failNext } = coalescer(100);
    failNext();
    await c.later(at(0, 1));
    await jest.advanceTimersByTimeAsync(100);
    expect(failures.map((e) => e.message)).toEqual(['rebalance in progress']);
    await expect(c.now(at(0, 2))).rejects.toThrow('rebalance in progress');
    expect(commits).toEqual([]);
  });
});
