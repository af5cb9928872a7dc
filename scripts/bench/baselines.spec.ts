import { parsePgbenchTps } from './baselines';

describe('bench baselines', () => {
  it("reads pgbench's tps line", () => {
    const out = 'number of transactions actually processed: 12345\nlatency average = 6.4 ms\ninitial connection time = 12.1 ms\ntps = 1234.567890 (without initial connection time)\n';
    expect(parsePgbenchTps(out)).toBeCloseTo(1234.57, 2);
    expect(() => parsePgbenchTps('pgbench: error')).toThrow(/no tps/);
  });
});
