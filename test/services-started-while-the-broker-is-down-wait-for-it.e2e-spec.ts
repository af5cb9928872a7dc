import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Harness } from './support/harness';
import { ROOT, type RunningApp } from './support/services';
import { Stack } from './support/stack';

const kafka = (cmd: 'start' | 'stop') => {
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'kafka.sh'), cmd], { encoding: 'utf8', env: process.env });
  if (r.status !== 0) throw new Error(`kafka.sh ${cmd} failed: ${r.stderr}`);
};
const alive = (app: RunningApp) => app.child.exitCode === null && app.child.signalCode === null;
const ready = async (app: RunningApp) => {
  try {
    return (await fetch(`http://127.0.0.1:${app.port}/health/ready`)).ok;
  } catch {
    return false;
  }
};

// A broker outage is transient: a service (re)started during one must wait for the broker, not
// exit once kafkajs gives up connecting (the chaos suite saw a restarted dispatcher exit 1 that
// way). KAFKA_CONNECT_RETRIES=1 makes kafkajs give up within a second or two, so on the old code
// both apps exited long before the broker came back.
describe('services started while the broker is down', () => {
  let stack: Stack;
  let h: Harness;
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('stay up and not ready, then serve decisions once the broker is back', async () => {
    stack = await Stack.create('brokerlate');
    let apps: RunningApp[] = [];
    kafka('stop');
    try {
      const env = { KAFKA_CONNECT_RETRIES: '1' };
      apps = [
        // In-process relays off: their first connect waits out kafkajs's own retries and would
        // only delay the consumers; a standalone relay is started once the broker is back.
        await stack.start('authorizer', 'authorizer', { relay: false, waitReady: false, env }),
        await stack.start('dispatcher', 'dispatcher', { relay: false, waitReady: false, env }),
      ];
      await new Promise((r) => setTimeout(r, 8_000));
      for (const app of apps) {
        expect({ app: app.name, alive: alive(app) }).toEqual({ app: app.name, alive: true });
        expect(await ready(app)).toBe(false);
        expect(readFileSync(app.logFile, 'utf8')).toContain('broker not reachable at start-up');
      }
    } finally {
      kafka('start');
    }

    await stack.start('relay', 'relay');
    h = await new Harness(stack.env).start();
    await h.waitUntil('both apps ready', async () => (await Promise.all(apps.map(ready))).every(Boolean), 90_000);
    const decisions = await h.decisions('brokerlate-run', 3);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 3, 90_000);
    const finals = await h.finalRows(ids);
    expect(finals.map((f) => f.effect_boundary)).toEqual(['effect_completed', 'effect_completed', 'effect_completed']);
    expect(apps.every(alive)).toBe(true);
  });
});
