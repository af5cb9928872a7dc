import { scrapeSnapshot } from './scrape-snapshot';

describe('scrapeSnapshot', () => {
  it('serves every gauge of one scrape from one read, and reads again once the snapshot is old', async () => {
    let t = 1_000;
    let reads = 0;
    const snap = scrapeSnapshot(async () => ++reads, 500, () => t);
    expect(await Promise.all([snap(), snap(), snap(), snap()])).toEqual([1, 1, 1, 1]);
    t += 400;
    expect(await snap()).toBe(1);
    t += 200;
    expect(await snap()).toBe(2);
    expect(reads).toBe(2);
  });

  it('does not keep a failed read: the next scrape tries again', async () => {
    let fail = true;
    let reads = 0;
    const snap = scrapeSnapshot(async () => {
      reads += 1;
      if (fail) throw new Error('database down');
      return 'ok';
    }, 500, () => 0);
    await expect(snap()).rejects.toThrow('database down');
    fail = false;
    await expect(snap()).resolves.toBe('ok');
    expect(reads).toBe(2);
  });
});
