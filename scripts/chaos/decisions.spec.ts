import { DecisionMix } from './decisions';

describe('chaos decision mix', () => {
  const take = (seed: number, n: number) => {
    const mix = new DecisionMix(seed, 'tag');
    return Array.from({ length: n }, () => mix.next());
  };

  it('is the same sequence for the same seed', () => {
    expect(take(9, 300)).toEqual(take(9, 300));
    expect(take(9, 300)).not.toEqual(take(10, 300));
  });

  it('is mostly notes and transfers, with some flaky records and a few repeats of earlier actions', () => {
    const all = take(1, 5000);
    const share = (f: (d: (typeof all)[number]) => boolean) => all.filter(f).length / all.length;
    expect(share((d) => d.tool === 'notes.append')).toBeGreaterThan(0.6);
    expect(share((d) => d.tool === 'ledger.transfer')).toBeGreaterThan(0.15);
    expect(share((d) => d.tool === 'flaky.record')).toBeGreaterThan(0.05);
    const repeats = all.filter((d) => d.repeat);
    expect(repeats.length).toBeGreaterThan(50);
    for (const r of repeats) expect(all.filter((d) => !d.repeat && d.payload === r.payload)).toHaveLength(1);
  });
});
