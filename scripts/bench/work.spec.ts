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

  it('splits the row counts by table, leaving out tables that did not move', () => {
    const t = (inserted: number, updated = 0, hotUpdated = 0, deleted = 0) => ({ inserted, updated, hotUpdated, deleted });
    const db = (tables: Record<string, ReturnType<typeof t>>) => ({ commits: 0, inserted: 0, updated: 0, hotUpdated: 0, deleted: 0, tables });
    const a = { database: db({ outbox: t(10, 0, 0, 5), notes: t(3), runs: t(1, 4, 4) }), brokerRequests: null };
    const b = { database: db({ outbox: t(30, 0, 0, 25), notes: t(3), runs: t(1, 8, 6), effects: t(10, 10, 5) }), brokerRequests: null };
    expect(workFigures(a, b, 10).database?.tables).toEqual({ outbox: t(2, 0, 0, 2), runs: t(0, 0.4, 0.2), effects: t(1, 1, 0.5) });
  });

  it('says nothing where one end could not be read', () => {
    const w = workFigures({ database: null, brokerRequests: null }, { database: { commits: 1, inserted: 1, updated: 1, hotUpdated: 1, deleted: 1 }, brokerRequests: new Map() }, 10);
    expect(w).toEqual({ database: null, brokerRequests: null });
  });
});
