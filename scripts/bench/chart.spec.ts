import { latencyChart, niceCeiling } from './chart';

const points = [
  { offered: 50, p50Ms: 20, p95Ms: 40, p99Ms: 60 },
  { offered: 200, p50Ms: 30, p95Ms: 90, p99Ms: 140 },
  { offered: 500, p50Ms: NaN, p95Ms: NaN, p99Ms: NaN },
];

describe('bench latency chart', () => {
  it('rounds the y axis up to 1, 2 or 5 times a power of ten', () => {
    expect([niceCeiling(140), niceCeiling(0.3), niceCeiling(2000), niceCeiling(0)]).toEqual([200, 0.5, 2000, 1]);
  });

  it('draws one line per percentile and series, skipping missing points, with a legend', () => {
    const svg = latencyChart([{ label: 'A <abc>', points }, { label: 'B', points: points.slice(0, 1) }], 'latency & load');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(6);
    expect(svg.match(/<circle/g)).toHaveLength(2 * 3 + 3);
    expect(svg).toContain('A &lt;abc&gt; p99');
    expect(svg).toContain('latency &amp; load');
    expect(svg).not.toContain('NaN');
    // The x axis names every offered rate; the y axis tops out at the rounded maximum (200 ms).
    for (const r of ['>50<', '>200<', '>500<', '>200</text>']) expect(svg).toContain(r);
    expect(svg).toContain('points="70,');
  });

  it('puts a higher latency higher on the page', () => {
    const svg = latencyChart([{ label: 'A', points: points.slice(0, 2) }], 't');
    const p99 = /stroke-dasharray="2 3" points="([^"]+)"/.exec(svg)![1].split(' ').map((xy) => Number(xy.split(',')[1]));
    expect(p99[1]).toBeLessThan(p99[0]);
  });

  it('draws an empty chart without failing', () => {
    expect(latencyChart([], 'nothing')).toContain('</svg>');
  });
});
