import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminApi } from './support/admin-api';
import { Harness } from './support/harness';
import { Prometheus, type PromAlert } from './support/prometheus';
import { ROOT, type RunningApp } from './support/services';
import { exited, Stack } from './support/stack';
import { FAST_RECOVERY } from './support/effect-probes';

const RULE_FILES = ['arvis.rules.yml'];
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'arvis-golden-signals.json');
const firing = (alerts: PromAlert[]) => alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname).sort();

// Debian's Prometheus with the shipped rule files, unchanged, scraping both apps' management
// ports every second while one effect is left effect_state_unknown (ADR 0060): the unknown-effect
// alert fires with no delay, once however many dispatchers report it, and stops once resolved.
describe('an unresolved unknown effect, seen by Prometheus with the shipped rules', () => {
  let stack: Stack;
  let h: Harness;
  let prom: Prometheus | undefined;
  let authorizer: RunningApp;
  let dispatchers: RunningApp[];
  beforeAll(async () => {
    stack = await Stack.create('promalert');
    authorizer = await stack.start('authorizer', 'authorizer', { env: { EFFECT_MAX_OVERRUN_MS: '0' } });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await prom?.stop();
    await h?.close();
    await stack?.stop();
  });

  it('fires ArvisUnknownEffectUnresolved through /api/v1/alerts, and it ends when an operator resolves the effect', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', { faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'lost:', at: 'after_marker', signal: 'SIGKILL' }] }, env: FAST_RECOVERY });
    const [lost] = await h.decisions('promalert-run', 1, { decisionId: 'lost:1' });
    await h.client.send([lost]);
    expect(await exited(dying)).toBe('SIGKILL');
    // Two dispatchers, so the database gauges are reported twice and must not add up.
    dispatchers = [await stack.start('dispatcher', 'dispatcher-a', { env: FAST_RECOVERY }), await stack.start('dispatcher', 'dispatcher-b', { env: FAST_RECOVERY })];
    await h.waitUntil('recovery to close the effect unknown', async () => (await h.finalRows([lost.decisionId])).length === 1);
    expect((await h.finalRows([lost.decisionId]))[0]).toMatchObject({ effect_boundary: 'effect_state_unknown', reason_code: 'dispatcher_lost_during_effect' });
    const [done] = await h.decisions('promalert-run', 1, { decisionId: 'done:1', causalId: 'done', payload: { text: 'fine', ref: 'done:1' } });
    await h.client.send([done]);
    await h.waitUntil('a normal decision to complete', async () => (await h.finalRows([done.decisionId])).length === 1);
    // And one unreadable decision: a dead letter.
    await h.produceRaw(h.topics.decisions, 'promalert-run', '{"decisionId": nope');

    prom = await Prometheus.start(stack.env.name, { authorizer: [authorizer.port], dispatcher: dispatchers.map((d) => d.port) }, RULE_FILES);
    const p = prom;
    await h.waitUntil('every target to be scraped', async () => (await p.query('up == 1')).length === 3);
    await h.waitUntil('the unknown-effect alert to fire', async () => firing(await p.alerts()).includes('ArvisUnknownEffectUnresolved'));
    await h.waitUntil('the dead-letter alert to fire', async () => firing(await p.alerts()).includes('ArvisDeadLetters'));
    const alert = (await p.alerts()).find((a) => a.labels.alertname === 'ArvisUnknownEffectUnresolved')!;
    expect({ severity: alert.labels.severity, value: Number(alert.value), summary: alert.annotations.summary }).toEqual({
      severity: 'page',
      value: 1,
      summary: '1 effect(s) ended effect_state_unknown and no operator resolved them',
    });
    // Every target is scraped, each dispatcher reports the one effect, and the rule's max keeps it one.
    expect((await p.query('up')).map((s) => [s.metric.job, s.value[1]]).sort()).toEqual([['authorizer', '1'], ['dispatcher', '1'], ['dispatcher', '1']]);
    expect((await p.query('arvis_effects_unknown_unresolved')).map((s) => s.value[1])).toEqual(['1', '1']);
    // The decisions counter, from whichever process wrote each final entry, summed.
    const finals = (await p.query('sum by (kind, reason_code, tool) (arvis_decisions_total)')).map((s) => [s.metric.kind, s.metric.reason_code, s.metric.tool, s.value[1]]).sort();
    expect(finals).toEqual([
      ['tool_result', 'dispatcher_lost_during_effect', lost.tool, '1'],
      ['tool_result', 'none', done.tool, '1'],
    ]);
    expect((await p.query('arvis_dead_letters_total')).map((s) => [s.metric.job, s.metric.reason_code, s.value[1]])).toEqual([['authorizer', 'malformed_message', '1']]);
    // Only these alerts fire on this otherwise healthy stack, and every rule evaluates cleanly.
    expect(firing(await p.alerts())).toEqual(['ArvisDeadLetters', 'ArvisUnknownEffectUnresolved']);
    const rules = async () => (await p.rules()).flatMap((g) => g.rules);
    await h.waitUntil('every rule to be evaluated', async () => (await rules()).every((r) => r.health !== 'unknown'));
    expect((await rules()).filter((r) => r.health !== 'ok')).toEqual([]);

    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const resolved = await adminApi(authorizer)('POST', `/admin/effects/${encodeURIComponent(lost.decisionId)}/resolve`, olga, { outcome: 'completed', note: 'checked by hand' });
    expect(resolved.status).toBe(200);
    await h.waitUntil('the alert to stop firing', async () => !firing(await p.alerts()).includes('ArvisUnknownEffectUnresolved'));
    expect((await p.query('arvis_effects_unknown_unresolved')).map((s) => s.value[1])).toEqual(['0', '0']);
  });

  it('answers every query of the Grafana dashboard with a series', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((t) => ({ panel: panel.title, expr: t.expr })));
    expect(queries.length).toBeGreaterThan(0);
    const p = prom!;
    for (const q of queries) {
      await h.waitUntil(`a series for "${q.panel}": ${q.expr}`, async () => (await p.query(q.expr)).length > 0, 30_000);
    }
  });
});
