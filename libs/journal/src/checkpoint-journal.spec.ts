import { checkpointDue } from './checkpoint-journal';

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
