import type { Admin } from 'kafkajs';
import { TurnKeeper, waitingPartitions, type TurnView } from './turn-keeper';

const view = (over: Partial<TurnView>): TurnView => ({
  assigned: [0, 1, 2],
  self: 0,
  busy: new Set(),
  nextFetch: new Map([
    [1, 10n],
    [2, 5n],
  ]),
  highs: new Map([
    [0, 900n],
    [1, 10n],
    [2, 5n],
  ]),
  ...over,
});

const ids = (v: TurnView) => waitingPartitions(v).map((w) => w.partition);

describe('waitingPartitions', () => {
  it('finds none when every other partition has been fetched to its log end (its own backlog does not count)', () => {
    expect(waitingPartitions(view({}))).toEqual([]);
  });

  it('finds a partition with messages beyond where its next fetch starts, with how many', () => {
    expect(waitingPartitions(view({ highs: new Map([[0, 900n], [1, 11n], [2, 305n]]) }))).toEqual([
      { partition: 1, waiting: 1n },
      { partition: 2, waiting: 300n },
    ]);
  });

  it('does not count a partition whose batch of this round is being handled', () => {
    expect(ids(view({ busy: new Set([1]), highs: new Map([[0, 900n], [1, 50n], [2, 5n]]) }))).toEqual([]);
  });

  it('counts a partition of unknown position or log end as waiting unless its log is empty', () => {
    expect(ids(view({ nextFetch: new Map([[1, 10n]]) }))).toEqual([2]);
    expect(ids(view({ nextFetch: new Map([[1, 10n]]), highs: new Map([[1, 10n], [2, 0n]]) }))).toEqual([]);
    expect(ids(view({ highs: new Map([[1, 10n]]) }))).toEqual([2]);
  });

  it('only looks at partitions assigned to this member', () => {
    expect(ids(view({ assigned: [0, 2], highs: new Map([[1, 99n], [2, 5n]]) }))).toEqual([]);
  });
});

describe('TurnKeeper', () => {
  /** An admin whose topic has these log ends and whose group committed nothing. */
  const admin = (highs: number[], fail = false) =>
    ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchOffsets: async () => [{ topic: 't', partitions: highs.map((_, partition) => ({ partition, offset: '-1' })) }],
      fetchTopicOffsets: async () => {
        if (fail) throw new Error('broker unreachable');
        return highs.map((h, partition) => ({ partition, offset: String(h), high: String(h), low: '0' }));
      },
    }) as unknown as Admin;

  it('tells a few new messages (an idle partition woke up) from a backlog, and counts a batch that yielded with a rest', async () => {
    const turns = new TurnKeeper(admin([900, 40]), 'g', 32n);
    turns.assign({ t: [0, 1] });
    turns.begin('t', 1);
    expect(await turns.othersWaiting('t', 0)).toBe('none');
    turns.end('t', 1, 8n);
    expect(await turns.othersWaiting('t', 0)).toBe('new');
    turns.begin('t', 1);
    turns.end('t', 1, 40n);
    expect(await turns.othersWaiting('t', 0)).toBe('none');
    const behind = new TurnKeeper(admin([900, 40]), 'g', 32n);
    behind.assign({ t: [0, 1] });
    expect(await behind.othersWaiting('t', 0)).toBe('backlog');
  });

  it('answers "new" when the broker cannot be asked, and "none" when the member has only the asking partition', async () => {
    const down = new TurnKeeper(admin([900, 0], true), 'g', 32n);
    down.assign({ t: [0, 1] });
    expect(await down.othersWaiting('t', 0)).toBe('new');
    const alone = new TurnKeeper(admin([900], true), 'g', 32n);
    alone.assign({ t: [0] });
    expect(await alone.othersWaiting('t', 0)).toBe('none');
  });
});
