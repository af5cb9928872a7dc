import { waitingPartitions, type TurnView } from './turn-keeper';

const view = (over: Partial<TurnView>): TurnView => ({
  assigned: [0, 1, 2],
  self: 0,
  busy: new Set(),
  fetchedTo: new Map([
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

describe('waitingPartitions', () => {
  it('finds none when every other partition has been fetched to its log end (its own backlog does not count)', () => {
    expect(waitingPartitions(view({}))).toEqual([]);
  });

  it('finds a partition with messages beyond what this member fetched', () => {
    expect(waitingPartitions(view({ highs: new Map([[0, 900n], [1, 11n], [2, 5n]]) }))).toEqual([1]);
  });

  it('does not count a partition whose batch of this round is being handled', () => {
    expect(waitingPartitions(view({ busy: new Set([1]), highs: new Map([[0, 900n], [1, 50n], [2, 5n]]) }))).toEqual([]);
  });

  it('counts a partition of unknown position or log end as waiting unless its log is empty', () => {
    expect(waitingPartitions(view({ fetchedTo: new Map([[1, 10n]]) }))).toEqual([2]);
    expect(waitingPartitions(view({ fetchedTo: new Map([[1, 10n]]), highs: new Map([[1, 10n], [2, 0n]]) }))).toEqual([]);
    expect(waitingPartitions(view({ highs: new Map([[1, 10n]]) }))).toEqual([2]);
  });

  it('only looks at partitions assigned to this member', () => {
    expect(waitingPartitions(view({ assigned: [0, 2], highs: new Map([[1, 99n], [2, 5n]]) }))).toEqual([]);
  });
});
