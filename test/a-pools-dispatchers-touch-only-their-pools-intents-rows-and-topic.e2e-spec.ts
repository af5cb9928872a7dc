import { join } from 'node:path';
import { Harness } from './support/harness';
import { groupOf } from './support/environment';
import { createPoolTopics } from './support/pool-topics';
import { exited, metric, Stack } from './support/stack';
import { stopApp, type RunningApp } from './support/services';

const FIXTURES = join(__dirname, 'support', 'tool-packages');
const ALPHA = join(FIXTURES, 'pool-alpha');
const ALPHA_NEXT = join(FIXTURES, 'pool-alpha-next');
const BETA = join(FIXTURES, 'pool-beta');
const DEMO = join(__dirname, '..', 'dist', 'tools', 'demo');

// ADR 0081: two pools, alpha and beta, one fixture package each, each served by its own
// dispatcher group; the authorizer holds every spec. Recovery and redelivery run every 200 ms with
// short waits, so a dispatcher that acted on the other pool's rows would do so within the spec.
const FAST = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '200', REDELIVER_AFTER_MS: '500' };
const poolEnv = (pool: string, pkg: string, id: string) => ({ ...FAST, DISPATCHER_POOLS: pool, ARVIS_TOOL_PACKAGES: pkg, DISPATCHER_ID: id });
// Beta's dispatcher dies (SIGKILL) once its body for a `pools-kill:` decision wrote its start marker.
const KILL_MID_BODY = { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'pools-kill:', at: 'after_marker' as const, signal: 'SIGKILL' as const }] };

describe("a pool's dispatchers touch only their pool's intents, rows and topic", () => {
  let stack: Stack;
  let h: Harness;
  let alpha: RunningApp;
  let beta: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('pools', { toolPackages: [ALPHA, BETA] });
    await createPoolTopics(stack.env, ['alpha', 'beta']);
    [, alpha, beta] = await Promise.all([
      stack.start('authorizer', 'authorizer'),
      stack.start('dispatcher', 'alpha-1', { env: poolEnv('alpha', ALPHA, 'alpha-1') }),
      stack.start('dispatcher', 'beta-1', { env: poolEnv('beta', BETA, 'beta-1'), faults: KILL_MID_BODY }),
    ]);
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  type Tool = 'alpha.echo' | 'beta.echo';
  /** One send for all (the client's producer connects once). */
  const sendAll = async (...list: [id: string, tool: Tool, text?: string][]) => {
    const ds = await Promise.all(list.map(async ([id, tool, text]) => (await h.decisions(`run-${id}`, 1, { decisionId: id, tool, payload: { text: text ?? id } }))[0]));
    await h.client.send(ds);
    return ds.map((d) => d.decisionId);
  };
  const send = async (id: string, tool: Tool) => (await sendAll([id, tool]))[0];
  const boundaries = async (ids: string[]) => {
    const rows = await h.finalRows(ids);
    return ids.map((id) => rows.find((r) => r.decision_id === id)?.effect_boundary);
  };
  const ended = (ids: string[], what: string) => h.waitUntil(what, async () => (await h.finalRows(ids)).length === ids.length, 30_000);
  const effectOf = async (decisionId: string) =>
    (await h.query<{ pool: string; dispatcher_id: string; state: string; finished_at: Date | null }>('SELECT pool, dispatcher_id, state, finished_at FROM effects WHERE decision_id = $1', [decisionId]))[0];
  const intentOf = async (decisionId: string) =>
    (await h.query<{ pool: string; catalog_fingerprint: string; delivery_attempts: number }>('SELECT pool, catalog_fingerprint, delivery_attempts FROM intents WHERE decision_id = $1', [decisionId]))[0];
  const ready = async (app: RunningApp) => (await (await fetch(`http://127.0.0.1:${app.port}/health/ready`)).json()) as { consumers: Record<string, { group: string; topics: string[]; state: string }> };

  it('runs each decision in its pool, on its pool’s dispatcher, and reports per pool', async () => {
    const [a, b] = await sendAll(['pools-a1', 'alpha.echo'], ['pools-b1', 'beta.echo']);
    await ended([a, b], 'both decisions to end');
    expect(await boundaries([a, b])).toEqual(['effect_completed', 'effect_completed']);
    expect(await effectOf(a)).toMatchObject({ pool: 'alpha', dispatcher_id: 'alpha-1', state: 'effect_completed' });
    expect(await effectOf(b)).toMatchObject({ pool: 'beta', dispatcher_id: 'beta-1', state: 'effect_completed' });
    expect((await intentOf(a)).pool).toBe('alpha');
    expect(await metric(alpha, 'arvis_effects_executed_total', { pool: 'alpha' })).toBe(1);
    expect(await metric(beta, 'arvis_effects_executed_total', { pool: 'beta' })).toBe(1);
    expect(await metric(alpha, 'arvis_effects_executed_total', { pool: 'beta' })).toBe(0);
    const group = groupOf(stack.env, 'dispatcher');
    expect((await ready(alpha)).consumers).toEqual({ alpha: { group: `${group}.pool.alpha`, topics: [`${stack.env.topicPrefix}arvis.intents.pool.alpha`], state: 'connected' } });
    expect(Object.keys((await ready(beta)).consumers)).toEqual(['beta']);
  });

  it('delays only the stopped pool’s decisions, which finish once its dispatcher is back', async () => {
    await stopApp(beta);
    const b = await send('pools-b2', 'beta.echo');
    const a = await send('pools-a2', 'alpha.echo');
    await ended([a], 'the alpha decision to end');
    // Several of alpha's recovery and redelivery passes later, beta's intent is as it was committed:
    // not delivered again (to any topic), not claimed, not ended.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await h.finalRows([b])).toEqual([]);
    expect((await intentOf(b)).delivery_attempts).toBe(0);
    expect(await effectOf(b)).toBeUndefined();
    beta = await stack.start('dispatcher', 'beta-2', { env: poolEnv('beta', BETA, 'beta-2'), faults: KILL_MID_BODY });
    await ended([b], 'the beta decision to end once beta is back');
    expect(await effectOf(b)).toMatchObject({ pool: 'beta', dispatcher_id: 'beta-2', state: 'effect_completed' });
  });

  it('leaves a body lost by a killed pool dispatcher to its own pool: the other pool touches nothing of it', async () => {
    const k = await send('pools-kill:1', 'beta.echo');
    expect(await exited(beta, 30_000)).toBe('SIGKILL');
    const lost = await effectOf(k);
    expect(lost).toMatchObject({ pool: 'beta', dispatcher_id: 'beta-2', state: 'effect_started', finished_at: null });
    // Past its deadline (3 s timeout + 0.5 s grace) alpha's recovery, every 200 ms, would close it.
    await h.waitUntil('the lost effect to pass its deadline', async () => (await h.query<{ past: boolean }>('SELECT deadline_at < now() - interval \'1 second\' AS past FROM effects WHERE decision_id = $1', [k]))[0].past, 15_000);
    expect(await effectOf(k)).toEqual(lost);
    expect(await h.finalRows([k])).toEqual([]);
    expect((await h.query<{ n: number }>('SELECT count(*)::int AS n FROM tool_body_starts m JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1 AND m.recovery_fence', [k]))[0].n).toBe(0);
    // Beta's own dispatcher, back, recovers it: its body began, so nobody knows whether it acted.
    beta = await stack.start('dispatcher', 'beta-3', { env: poolEnv('beta', BETA, 'beta-3') });
    await ended([k], 'beta to recover its own lost effect');
    const [final] = await h.finalRows([k]);
    expect([final.effect_boundary, final.reason_code]).toEqual(['effect_state_unknown', 'dispatcher_lost_during_effect']);
    await h.waitUntil('every dispatcher to report beta’s unknown effect under its pool', async () => (await metric(alpha, 'arvis_effects_unknown_unresolved', { pool: 'beta' })) === 1);
    expect(await metric(alpha, 'arvis_effects_unknown_unresolved', { pool: 'alpha' })).toBe(0);
  });

  it('upgrades one pool’s package and leaves the other pool’s catalog and dispatchers untouched', async () => {
    const before = { alpha: (await intentOf('pools-a1')).catalog_fingerprint, beta: (await intentOf('pools-b1')).catalog_fingerprint };
    const betaPid = beta.child.pid;
    // A rolling upgrade of alpha's package: its dispatcher and the authorizer, not beta's dispatcher.
    const authorizer = stack.apps.find((a) => a.name.endsWith('-authorizer'))!;
    await Promise.all([stopApp(alpha), stopApp(authorizer)]);
    [, alpha] = await Promise.all([
      stack.start('authorizer', 'authorizer-next', { env: { ARVIS_TOOL_PACKAGES: [DEMO, ALPHA_NEXT, BETA].join(',') } }),
      stack.start('dispatcher', 'alpha-next', { env: poolEnv('alpha', ALPHA_NEXT, 'alpha-next') }),
    ]);
    const [a, b] = await sendAll(['pools-a3', 'alpha.echo', 'x'.repeat(300)], ['pools-b3', 'beta.echo']);
    await ended([a, b], 'both decisions to end after the upgrade');
    expect(await boundaries([a, b])).toEqual(['effect_completed', 'effect_completed']);
    expect((await intentOf(a)).catalog_fingerprint).not.toBe(before.alpha);
    expect((await intentOf(b)).catalog_fingerprint).toBe(before.beta);
    expect(await effectOf(a)).toMatchObject({ pool: 'alpha', dispatcher_id: 'alpha-next' });
    expect(await effectOf(b)).toMatchObject({ pool: 'beta', dispatcher_id: 'beta-3' });
    expect(beta.child.pid).toBe(betaPid);
    expect(beta.child.exitCode).toBeNull();
  });
});
