import { checkpointDue, checkpointDueInMs } from './checkpoint-journal';

describe('checkpointDue', () => {
  const policy = { everyEntries: 5, everyMs: 1000 };
  it.each([
    [0n, 10_000, false, 'nothing unsigned, however long ago'],
    [4n, 999, false, 'fewer entries than the count, younger than the interval'],
    [5n, 0, true, 'the entry count reached'],
    [1n, 1000, true, 'the oldest unsigned entry as old as the interval'],
  ])('%s unsigned, oldest %s ms: %s (%s)', (unsigned, age, due) => {
    expect(checkpointDue(unsigned, age, policy)).toBe(due);
  });
});

describe('checkpointDueInMs', () => {
  const policy = { everyEntries: 5, everyMs: 1000 };
  it.each<[bigint, number, number | undefined, string]>([
    [0n, 300, undefined, 'nothing unsigned'],
    [2n, 300, 700, 'the oldest unsigned entry is due by age in the rest of the interval'],
    [2n, 999.2, 1, 'rounded up, never early'],
    [5n, 300, undefined, 'due already by count'],
    [1n, 1000, undefined, 'due already by age'],
  ])('%s unsigned, oldest %s ms: %s (%s)', (unsigned, age, dueIn) => {
    expect(checkpointDueInMs(unsigned, age, policy)).toBe(dueIn);
  });
});
