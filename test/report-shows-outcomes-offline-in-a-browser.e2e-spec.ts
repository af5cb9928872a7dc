import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { DATA, ROOT } from './support/services';
import { Stack } from './support/stack';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const OUT = join(DATA, 'test-output');
const PAGE = join(OUT, 'report-outcomes.html');
const CHROMIUM = '/usr/bin/chromium';
const FIVE_MIN = 5 * 60_000;

type Expected = { tool: string; tenant: string; boundary: string; reason: string | null };
type Build = (h: Harness) => Promise<Omit<DecisionInput, 'decisionId' | 'causalId' | 'runId'>>;

// Decisions whose outcomes are known before they are sent: completions, policy refusals and one
// failing tool, from two tenants. `acme` has no consent data, so mail.send is refused at the gate.
const note = (n: number) => ({ tool: 'notes.append', payload: { text: `note ${n}` }, riskScore: 0.1 });
const scenarios: [Expected, Build][] = [
  ...[0, 1, 2, 3].map((n): [Expected, Build] => [
    { tool: 'notes.append', tenant: 'acme', boundary: 'effect_completed', reason: null },
    async (h) => ({ ...note(n), identity: await h.token({ tenant: 'acme' }) }),
  ]),
  ...[4, 5].map((n): [Expected, Build] => [
    { tool: 'notes.append', tenant: 'globex', boundary: 'effect_completed', reason: null },
    async (h) => ({ ...note(n), identity: await h.token({ tenant: 'globex' }) }),
  ]),
  ...[6, 7].map((n): [Expected, Build] => [
    { tool: 'notes.append', tenant: 'globex', boundary: 'pre_effect_refusal', reason: 'risk_exceeded' },
    async (h) => ({ ...note(n), riskScore: 0.9, identity: await h.token({ tenant: 'globex' }) }),
  ]),
  [
    { tool: 'shell.exec', tenant: 'globex', boundary: 'pre_effect_refusal', reason: 'unknown_tool' },
    async (h) => ({ tool: 'shell.exec', payload: { cmd: 'ls' }, riskScore: 0.1, identity: await h.token({ tenant: 'globex' }) }),
  ],
  [
    { tool: 'mail.send', tenant: 'acme', boundary: 'pre_effect_refusal', reason: 'consent_gate_missing' },
    async (h) => ({ tool: 'mail.send', payload: { to: 'bob@example.com', subject: 'hi', body: 'hello' }, riskScore: 0.1, identity: await h.token({ tenant: 'acme' }) }),
  ],
  [
    // Above the retry threshold: it fails once and is not retried, so it stays one outcome.
    { tool: 'flaky.record', tenant: 'acme', boundary: 'effect_failed', reason: 'tool_execution_failed' },
    async (h) => ({ tool: 'flaky.record', payload: { key: 'report', failTimes: 1 }, riskScore: 0.7, identity: await h.token({ tenant: 'acme' }) }),
  ],
];
const expected = scenarios.map(([e]) => e);
const countWhere = (keep: (e: Expected) => boolean) => expected.filter(keep).length;

function cli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** A table's body rows as objects keyed by the table's header cells. */
const tableRows = (page: Page, id: string) =>
  page.$eval(`#${id}`, (table) => {
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
    return [...table.querySelectorAll('tbody tr')].map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [heads[i], td.textContent ?? ''])));
  });

// The report's page is for an analyst who may open it anywhere: it must show the outcomes the
// journal holds, with its charts, while loading nothing at all from any network.
describe('the outcomes report opens offline in a browser and shows what the journal holds', () => {
  let stack: Stack;
  let h: Harness;
  let browser: Browser | undefined;
  let cliEnv: Record<string, string>;
  let window: { since: string; until: string };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`);
    stack = await Stack.create('report');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = stack.env.appEnv;
    cliEnv = { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX };
    // An hour from the 5-minute boundary before the first decision: 12 buckets of 5 minutes.
    const [{ now }] = await h.query<{ now: Date }>('SELECT now() AS now');
    const since = Math.floor(now.getTime() / FIVE_MIN) * FIVE_MIN;
    window = { since: new Date(since).toISOString(), until: new Date(since + 12 * FIVE_MIN).toISOString() };
    const decisions = await Promise.all(scenarios.map(async ([, build], i) => ({ ...(await build(h)), decisionId: `rep:${i}`, causalId: `c${i}`, runId: 'report-run' }) as DecisionInput));
    await h.client.send(decisions);
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === ids.length);
    mkdirSync(OUT, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await stack?.stop();
  });

  it('journals the outcomes the scenario intends (the report is checked against these)', async () => {
    const rows = await h.query<{ decision_id: string; tool: string; tenant: string; effect_boundary: string; reason_code: string | null }>(
      `SELECT decision_id, tool, tenant, effect_boundary, reason_code FROM journal WHERE final_decision_id IS NOT NULL ORDER BY journal.journal_seq`,
    );
    const byId = new Map(rows.map((r) => [r.decision_id, { tool: r.tool, tenant: r.tenant, boundary: r.effect_boundary, reason: r.reason_code }]));
    expect(expected.map((_, i) => byId.get(`rep:${i}`))).toEqual(expected);
    expect(rows).toHaveLength(expected.length);
  });

  it('prints the tables in the terminal for the default window (the last 24 h)', async () => {
    const r = await cli(cliEnv, ['report']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const cells = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`  ${name} `))?.trim().split(/\s+/);
    expect(r.stdout).toContain(`: ${expected.length} final entries`);
    // Columns: tool, outcomes, then the boundaries seen in contract order (refusal, completed, failed).
    expect(cells('notes.append')?.slice(0, 5)).toEqual(['notes.append', '8', '2', '6', '0']);
    expect(cells('flaky.record')?.slice(0, 5)).toEqual(['flaky.record', '1', '0', '0', '1']);
    expect(cells('globex')).toEqual(['globex', '5', '3', '2', '0']);
    expect(cells('risk_exceeded')).toEqual(['risk_exceeded', '2', 'authorization_refusal=2']);
  });

  it('writes one page that loads nothing from any network and shows the counts and charts', async () => {
    const r = await cli(cliEnv, ['report', '--since', window.since, '--until', window.until, '--html', PAGE, '--json']);
    expect([r.code, r.stderr.trim()]).toEqual([0, `report page written to ${PAGE}`]);
    const doc = JSON.parse(r.stdout) as { outcomes: number; window: { since: string; until: string }; byTool: { tool: string; latency: { p50Ms: number | null; p95Ms: number | null } }[] };
    expect([doc.outcomes, doc.window.since, doc.window.until]).toEqual([expected.length, window.since, window.until]);
    // Refusals decided in the receiving transaction took no time; never less (seen: -1 ms from rounding).
    const negative = doc.byTool.filter((t) => (t.latency.p50Ms ?? 0) < 0 || (t.latency.p95Ms ?? 0) < 0);
    expect(negative).toEqual([]);

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    // bypassCSP: the page's own policy would silently block a fetch; the spec must see any attempt.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1024, height: 800 } });
    const pageUrl = pathToFileURL(PAGE).href;
    const attempts: string[] = [];
    const complaints: string[] = [];
    await context.route('**/*', (route) => {
      if (route.request().url() === pageUrl) return route.continue();
      attempts.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage();
    page.on('request', (req) => req.url() !== pageUrl && attempts.push(req.url()));
    page.on('console', (m) => m.type() === 'error' && complaints.push(m.text()));
    page.on('pageerror', (e) => complaints.push(e.message));
    await page.goto(pageUrl, { waitUntil: 'load' });

    expect(await page.textContent('#summary')).toContain(`${expected.length} final entries`);
    const tools = await tableRows(page, 'by-tool');
    expect(tools.map((t) => [t.tool, t.outcomes, t.effect_completed, t.pre_effect_refusal, t.effect_failed])).toEqual([
      ['notes.append', '8', '6', '2', '0'],
      ['flaky.record', '1', '0', '0', '1'],
      ['mail.send', '1', '0', '1', '0'],
      ['shell.exec', '1', '0', '1', '0'],
    ]);
    expect((await tableRows(page, 'by-tenant')).map((t) => [t.tenant, t.outcomes])).toEqual([
      ['acme', String(countWhere((e) => e.tenant === 'acme'))],
      ['globex', String(countWhere((e) => e.tenant === 'globex'))],
    ]);
    const reasons = Object.fromEntries((await tableRows(page, 'by-reason')).map((x) => [x['reason code'], Number(x.outcomes)]));
    expect(reasons).toEqual({ risk_exceeded: 2, unknown_tool: 1, consent_gate_missing: 1, tool_execution_failed: 1 });

    // Latency: a p50 and a p95 bar per tool; outcomes over time: 12 buckets whose segments add up.
    expect(await page.locator('#latency svg rect.bar').count()).toBe(2 * tools.length);
    expect(await page.locator('#timeline svg g.bucket').count()).toBe(12);
    const segments = await page.$$eval('#timeline rect.segment', (rs) => rs.map((s) => [s.getAttribute('data-boundary'), Number(s.getAttribute('data-count'))] as const));
    const perBoundary: Record<string, number> = {};
    for (const [b, n] of segments) perBoundary[b ?? ''] = (perBoundary[b ?? ''] ?? 0) + n;
    expect(perBoundary).toEqual({ effect_completed: 6, pre_effect_refusal: 4, effect_failed: 1 });
    for (const chart of ['#latency svg', '#timeline svg']) expect((await page.locator(chart).boundingBox())?.height).toBeGreaterThan(50);

    await page.screenshot({ path: join(OUT, 'report-outcomes.png'), fullPage: true });
    expect(attempts).toEqual([]);
    expect(complaints).toEqual([]);
    expect(readFileSync(PAGE, 'utf8')).not.toMatch(/https?:\/\//);
  });
});
