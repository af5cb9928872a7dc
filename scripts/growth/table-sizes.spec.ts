import { perMillionTable } from './table-sizes';

describe('growth per million decisions', () => {
  it('extrapolates rows and bytes linearly and sums the tables', () => {
    const md = perMillionTable(
      [
        { table: 'intents', rows: 20_000, heapBytes: 20 * 1024 * 1024, indexBytes: 4 * 1024 * 1024, totalBytes: 30 * 1024 * 1024 },
        { table: 'journal', rows: 40_000, heapBytes: 10 * 1024 * 1024, indexBytes: 2 * 1024 * 1024, totalBytes: 12 * 1024 * 1024 },
      ],
      20_000,
    );
    expect(md.split('\n')).toEqual([
      '| table | rows / M decisions | heap + TOAST MB / M | index MB / M | total MB / M |',
      '|---|---:|---:|---:|---:|',
      '| intents | 1.00 M | 1300.0 | 200.0 | 1500.0 |',
      '| journal | 2.00 M | 500.0 | 100.0 | 600.0 |',
      '| **all** | 3.00 M | 1800.0 | 300.0 | 2100.0 |',
    ]);
  });
});
