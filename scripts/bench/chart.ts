// A hand-drawn SVG of decision-to-journal latency (p50, p95, p99) against offered load. Pure: data in, text out.

export interface ChartSeries {
  label: string;
  points: { offered: number; p50Ms: number; p95Ms: number; p99Ms: number }[];
}

const W = 720;
const H = 420;
const M = { left: 70, right: 170, top: 40, bottom: 50 };
const COLORS = ['#1f6feb', '#d1242f', '#1a7f37', '#8250df'];
const PERCENTILES = [
  { key: 'p50Ms', name: 'p50', dash: '' },
  { key: 'p95Ms', name: 'p95', dash: '6 4' },
  { key: 'p99Ms', name: 'p99', dash: '2 3' },
] as const;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A round upper bound for the y axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= max)!;
}

function axes(rates: number[], x: (r: number) => number, yMax: number, y: (v: number) => number): string[] {
  const out = [
    `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle">offered load (decisions/s)</text>`,
    `<text x="18" y="${(M.top + H - M.bottom) / 2}" text-anchor="middle" transform="rotate(-90 18 ${(M.top + H - M.bottom) / 2})">latency (ms)</text>`,
  ];
  for (const r of rates) out.push(`<text x="${x(r)}" y="${H - M.bottom + 18}" text-anchor="middle">${r}</text>`);
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5;
    out.push(`<line x1="${M.left - 4}" y1="${y(v)}" x2="${W - M.right}" y2="${y(v)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 8}" y="${y(v) + 4}" text-anchor="end">${Math.round(v)}</text>`);
  }
  return out;
}

/** Offered rates are spaced evenly (they are usually spread over decades); y is linear from 0. */
export function latencyChart(series: ChartSeries[], title: string): string {
  const rates = [...new Set(series.flatMap((s) => s.points.map((p) => p.offered)))].sort((a, b) => a - b);
  const values = series.flatMap((s) => s.points.flatMap((p) => [p.p50Ms, p.p95Ms, p.p99Ms])).filter(Number.isFinite);
  const yMax = niceCeiling(Math.max(0, ...values));
  const plotW = W - M.left - M.right;
  const x = (r: number) => M.left + (rates.length <= 1 ? plotW / 2 : (rates.indexOf(r) * plotW) / (rates.length - 1));
  const y = (v: number) => Math.round((H - M.bottom - (v / yMax) * (H - M.top - M.bottom)) * 10) / 10;
  const body = axes(rates, x, yMax, y);
  series.forEach((s, si) => {
    const color = COLORS[si % COLORS.length];
    for (const [pi, pc] of PERCENTILES.entries()) {
      const pts = s.points.filter((p) => Number.isFinite(p[pc.key])).sort((a, b) => a.offered - b.offered);
      if (pts.length === 0) continue;
      const dash = pc.dash ? ` stroke-dasharray="${pc.dash}"` : '';
      body.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${pts.map((p) => `${x(p.offered)},${y(p[pc.key])}`).join(' ')}"/>`);
      for (const p of pts) body.push(`<circle cx="${x(p.offered)}" cy="${y(p[pc.key])}" r="3" fill="${color}"/>`);
      const ly = M.top + (si * PERCENTILES.length + pi) * 20;
      body.push(`<line x1="${W - M.right + 12}" y1="${ly}" x2="${W - M.right + 40}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`);
      body.push(`<text x="${W - M.right + 46}" y="${ly + 4}">${esc(`${s.label} ${pc.name}`)}</text>`);
    }
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
