import { dedupeVerdict } from './dedupe-window';

describe('dedupe rows are pruned only past what the decisions topic can redeliver', () => {
  it('prunes when the dedupe window is longer than the topic retention', () => {
    expect(dedupeVerdict(8 * 86_400_000, 7 * 86_400_000)).toEqual({ prune: true });
  });

  it('keeps them when the window is not longer, the retention is unlimited, or unknown', () => {
    expect(dedupeVerdict(7 * 86_400_000, 7 * 86_400_000)).toMatchObject({ prune: false, why: expect.stringContaining('not longer') });
    expect(dedupeVerdict(1, -1)).toMatchObject({ prune: false, why: expect.stringContaining('forever') });
    expect(dedupeVerdict(1, null)).toMatchObject({ prune: false, why: expect.stringContaining('could not be read') });
  });
});
