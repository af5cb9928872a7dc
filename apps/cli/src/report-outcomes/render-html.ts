import { BOUNDARIES, boundariesSeen, LATENCY_DEFINITION, type BoundaryCounts, type OutcomeReport } from './aggregate-outcomes';

/**
 * The report as one self-contained HTML page: styles inline, charts drawn here as inline SVG, no
 * script at all. Its Content-Security-Policy forbids every fetch, so the page cannot reach the
 * network even if a value slipped past escaping; it opens the same offline as online.
 */
export function renderReportHtml(r: OutcomeReport): string {
  const title = `Outcomes ${r.window.since} to ${r.window.until}`;
  const progress = Object.entries(r.progress).map(([kind, n]) => `${n} ${kind}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Outcomes</h1>
<p id="summary">From <time>${esc(r.window.since)}</time> to <time>${esc(r.window.until)}</time>: <strong>${r.outcomes}</strong> final entries${progress.length ? ` (and ${esc(progress.join(', '))})` : ''}.</p>
<section id="latency"><h2>Latency by tool (p50, p95)</h2>${latencyChart(r)}</section>
<section id="timeline"><h2>Outcomes over time (${esc(span(r.window.bucketMs))} per bar)</h2>${legend()}${timelineChart(r)}</section>
${tables(r)}
<p class="note">${esc(LATENCY_DEFINITION)}</p>
</body>
</html>
`;
}

// One colour per effect boundary, in the contract's order.
const COLOURS = ['#d97706', '#6b7280', '#2563eb', '#16a34a', '#dc2626', '#7c3aed'];

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #111; max-width: 980px; }
table { border-collapse: collapse; margin: 4px 0 20px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.note { color: #555; font-size: 12px; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.p50 { fill: #60a5fa; } .p95 { fill: #1d4ed8; }
${BOUNDARIES.map((b, i) => `.b-${b} { fill: ${COLOURS[i]}; background: ${COLOURS[i]}; }`).join('\n')}`;

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const fmt = (ms: number | null) => (ms === null ? '-' : `${Math.round(ms)} ms`);

function span(ms: number): string {
  const units: [number, string][] = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'min'], [1000, 's']];
  const [size, unit] = units.find(([size]) => ms % size === 0) ?? [1, 'ms'];
  return `${ms / size} ${unit}`;
}

/** Two horizontal bars per tool (p50 above p95), scaled to the largest p95. */
function latencyChart(r: OutcomeReport): string {
  const tools = r.byTool.filter((t) => t.latency.samples > 0);
  if (tools.length === 0) return '<p>No latency samples in this window.</p>';
  const [label, plot, row] = [170, 440, 34];
  const top = Math.max(1, ...tools.map((t) => t.latency.p95Ms ?? 0));
  const bars = tools.map((t, i) => {
    const y = i * row + 4;
    const bar = (stat: 'p50' | 'p95', value: number, dy: number) => {
      const w = Math.max(1, Math.round((value / top) * plot));
      return `<rect class="bar ${stat}" data-tool="${esc(t.tool)}" data-stat="${stat}" data-ms="${value}" x="${label}" y="${y + dy}" width="${w}" height="12"><title>${esc(t.tool)} ${stat} ${fmt(value)}</title></rect>` +
        `<text x="${label + w + 6}" y="${y + dy + 10}">${stat} ${fmt(value)}</text>`;
    };
    return `<g class="tool"><text x="0" y="${y + 16}">${esc(t.tool)} (${t.latency.samples})</text>` +
      bar('p50', t.latency.p50Ms ?? 0, 0) + bar('p95', t.latency.p95Ms ?? 0, 14) + '</g>';
  });
  const height = tools.length * row + 8;
  return `<svg role="img" aria-label="latency by tool" width="${label + plot + 110}" height="${height}" viewBox="0 0 ${label + plot + 110} ${height}">${bars.join('')}</svg>`;
}

function legend(): string {
  return `<p class="legend">${BOUNDARIES.map((b) => `<span><i class="b-${b}"></i>${b}</span>`).join('')}</p>`;
}

/** One stacked bar per time bucket, a segment per effect boundary with outcomes in it. */
function timelineChart(r: OutcomeReport): string {
  const [left, plot, height, bottom] = [40, 640, 180, 24];
  const top = Math.max(1, ...r.timeline.map((b) => b.outcomes));
  const width = plot / Math.max(1, r.timeline.length);
  const bars = r.timeline.map((bucket, i) => {
    let y = height;
    const segments = BOUNDARIES.filter((b) => bucket.byBoundary[b] > 0).map((b) => {
      const h = (bucket.byBoundary[b] / top) * height;
      y -= h;
      return `<rect class="segment b-${b}" data-boundary="${b}" data-count="${bucket.byBoundary[b]}" x="${(left + i * width + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, width - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(bucket.start)} ${b}: ${bucket.byBoundary[b]}</title></rect>`;
    });
    return `<g class="bucket" data-start="${esc(bucket.start)}" data-outcomes="${bucket.outcomes}">${segments.join('')}</g>`;
  });
  const first = r.timeline[0]?.start ?? r.window.since;
  const last = r.timeline[r.timeline.length - 1]?.start ?? r.window.until;
  const axis = `<line x1="${left}" y1="${height}" x2="${left + plot}" y2="${height}" stroke="#999"/>` +
    `<text x="0" y="10">${top}</text><text x="0" y="${height}">0</text>` +
    `<text x="${left}" y="${height + 16}">${esc(first)}</text><text x="${left + plot}" y="${height + 16}" text-anchor="end">${esc(last)}</text>`;
  return `<svg role="img" aria-label="outcomes over time" width="${left + plot + 10}" height="${height + bottom}" viewBox="0 0 ${left + plot + 10} ${height + bottom}">${axis}${bars.join('')}</svg>`;
}

function htmlTable(id: string, title: string, head: string[], rows: string[][]): string {
  const cells = (tag: string, row: string[]) => `<tr>${row.map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`;
  const body = rows.length ? rows.map((row) => cells('td', row)).join('\n') : `<tr><td colspan="${head.length}">none</td></tr>`;
  return `<section><h2>${esc(title)}</h2><table id="${id}"><thead>${cells('th', head)}</thead><tbody>\n${body}\n</tbody></table></section>`;
}

function tables(r: OutcomeReport): string {
  const seen = boundariesSeen(r);
  const perBoundary = (c: BoundaryCounts) => seen.map((b) => String(c[b]));
  return [
    htmlTable('by-tool', 'By tool', ['tool', 'outcomes', ...seen, 'latency p50', 'latency p95', 'tool time p50', 'tool time p95'],
      r.byTool.map((t) => [t.tool, String(t.outcomes), ...perBoundary(t.byBoundary), fmt(t.latency.p50Ms), fmt(t.latency.p95Ms), fmt(t.toolTime.p50Ms), fmt(t.toolTime.p95Ms)])),
    htmlTable('by-tenant', 'By tenant', ['tenant', 'outcomes', ...seen], r.byTenant.map((t) => [t.tenant, String(t.outcomes), ...perBoundary(t.byBoundary)])),
    htmlTable('by-reason', 'By reason code', ['reason code', 'outcomes', 'kinds'],
      r.byReason.map((x) => [x.reasonCode, String(x.outcomes), Object.entries(x.byKind).map(([k, n]) => `${k}=${n}`).join(' ')])),
    htmlTable('by-boundary', 'By effect boundary', ['effect boundary', 'outcomes'], BOUNDARIES.map((b) => [b, String(r.byBoundary[b])])),
  ].join('\n');
}
