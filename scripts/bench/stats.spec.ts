import { achievedRate, percentile, ratio, sameCounts, saturationPoint, summarize, medianBy, runOrder, summedCpu } from './stats';

describe('bench stats', () => {
  it('takes nearest-rank percentiles', () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(v, 50), percentile(v, 95), percentile(v, 99), percentile(v, 100)]).toEqual([50, 95, 99, 100]);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('summarizes unsorted latencies', () => {
    expect(summarize([30, 10, 20, 40])).toEqual({ count: 4, p50Ms: 20, p95Ms: 40, p99Ms: 40, maxMs: 40 });
  });

  it('measures the achieved rate over the longer of the sending span and the completion span', () => {
    expect(achievedRate(500, 10_000, 100, 10_050)).toBeCloseTo(50, 0);
    expect(achievedRate(500, 10_000, 100, 20_100)).toBeCloseTo(25, 5);
  });

  it('finds the saturation point as the highest passing step with every lower step passing', () => {
    const points = [
      { offered: 50, achieved: 50, p99Ms: 80 },
      { offered: 200, achieved: 199, p99Ms: 300 },
      { offered: 500, achieved: 420, p99Ms: 2000 },
      { offered: 1000, achieved: 990, p99Ms: 900 },
    ];
    expect(saturationPoint(points, 1000)).toBe(200);
    expect(saturationPoint(points, 100)).toBe(50);
    expect(saturationPoint(points, 50)).toBeNull();
    expect(saturationPoint([...points].reverse(), 1000)).toBe(200);
  });

  it('gives ratios only when both sides exist', () => {
    expect(ratio(200, 300)).toBe(1.5);
    expect(ratio(0, 3)).toBeNull();
    expect(ratio(null, 3)).toBeNull();
  });

  it('compares counts by key in any order, a zero equal to an absent key', () => {
    expect(sameCounts({ tool_result: 95, authorization_refusal: 5 }, { authorization_refusal: 5, tool_result: 95 })).toBe(true);
    expect(sameCounts({ tool_result: 100, admission_refusal: 0 }, { tool_result: 100 })).toBe(true);
    expect(sameCounts({ tool_result: 94 }, { tool_result: 95 })).toBe(false);
    expect(sameCounts(undefined, { tool_result: 1 })).toBe(false);
  });
});

describe('medianBy', () => {
  it('reports the middle run by the key, the lower middle of an even count', () => {
    const runs = [{ id: 'a', v: 1163 }, { id: 'b', v: 776 }, { id: 'c', v: 1052 }];
    expect(medianBy(runs, (r) => r.v).id).toBe('c');
    expect(medianBy([...runs, { id: 'd', v: 900 }], (r) => r.v).id).toBe('d');
    expect(medianBy([runs[0]], (r) => r.v).id).toBe('a');
    expect(() => medianBy([], (r: { v: number }) => r.v)).toThrow(/at least one run/);
  });
});

describe('summedCpu', () => {
  it('adds every role measured and counts a role without a figure as nothing', () => {
    expect(summedCpu({ authorizer: 0.5, dispatcher: 0.25, broker: null, postgres: 1 })).toBeCloseTo(1.75, 10);
    expect(summedCpu({})).toBe(0);
  });
});

describe('runOrder', () => {
  it('measures each build first in every other run', () => {
    expect([0, 1, 2, 3].map((run) => runOrder([0, 1], run))).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(runOrder([1, 0], 0)).toEqual([1, 0]);
    expect(runOrder([0], 1)).toEqual([0]);
  });
});
