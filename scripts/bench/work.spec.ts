import { parseRequestCounts, workFigures } from './work';

describe('work per decision', () => {
  it('reads the JMX reader\'s lines and ignores anything else', () => {
    expect([...parseRequestCounts('Fetch\t120\nProduce\t40\n\nnoise\n')]).toEqual([
      ['Fetch', 120],
      ['Produce', 40],
    ]);
  });

  it('divides each counter\'s growth over the window by the decisions, and HOT by the updates', () => {
    const a = { database: { commits: 10, inserted: 100, updated: 50, hotUpdated: 10, deleted: 0 }, brokerRequests: new Map([['Fetch', 100], ['Produce', 5]]) };
    const b = { database: { commits: 60, inserted: 400, updated: 250, hotUpdated: 160, deleted: 100 }, brokerRequests: new Map([['Fetch', 300], ['Produce', 5], ['Metadata', 10]]) };
    const w = workFigures(a, b, 100);
    expect(w.database).toEqual({ commits: 0.5, inserted: 3, updated: 2, hotUpdated: 1.5, deleted: 1, hotPercent: 75 });
    expect(w.brokerRequests).toEqual({ Fetch: 2, Metadata: 0.1 });
  });

  it('says nothing where one end could not be read', () => {
    const w = workFigures({ database: null, brokerRequests: null }, { database: { commits: 1, inserted: 1, updated: 1, hotUpdated: 1, deleted: 1 }, brokerRequests: new Map() }, 10);
    expect(w).toEqual({ database: null, brokerRequests: null });
  });
});
