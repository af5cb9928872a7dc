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

// Stops the suite's broker for ten seconds, once, for two scenarios (each with its own database
// and topics; the shared apps reconnect like any client would):
// - a relay started during the outage retries, then catches up with nothing lost or run twice;
// - an authorizer and a dispatcher (re)started during the outage wait for the broker, not ready,
//   instead of exiting once kafkajs gives up connecting (the chaos suite saw a restarted
//   dispatcher exit 1 that way). KAFKA_CONNECT_RETRIES=1 makes kafkajs give up within a second or
//   two: on the old code both had exited before the broker came back.
describe('the broker stopped for ten seconds and started again', () => {
  let stack: Stack;
  let late: Stack;
  let h: Harness;
  let hLate: Harness;
  beforeAll(async () => {
    stack = await Stack.create('brokerdown');
    late = await Stack.create('brokerlate');
    await stack.start('authorizer', 'authorizer', { relay: false });
    await stack.start('dispatcher', 'dispatcher', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await hLate?.close();
    await stack?.stop();
    await late?.stop();
  });

  it('leaves the relay retrying and services started meanwhile waiting; then nothing is lost and nothing runs twice', async () => {
    const N = 24;
    const decisions = (await Promise.all([0, 1, 2].map((r) => h.decisions(`brokerdown-run-${r}`, N / 3)))).flat();
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('every intent recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE decision_id = ANY($1)', [ids]);
      return Number(r.n) === N;
    });

    let lateApps: RunningApp[] = [];
    kafka('stop');
    try {
      const relay = await stack.start('relay', 'relay');
      // In-process relays off: their first connect waits out kafkajs's own retries and would only
      // delay the consumers; a standalone relay is started for them once the broker is back.
      const env = { KAFKA_CONNECT_RETRIES: '1' };
      lateApps = [
        await late.start('authorizer', 'authorizer', { relay: false, waitReady: false, env }),
        await late.start('dispatcher', 'dispatcher', { relay: false, waitReady: false, env }),
      ];
      await new Promise((r) => setTimeout(r, 10_000));
      expect(relay.child.exitCode).toBeNull();
      const stats = (await (await fetch(`http://127.0.0.1:${relay.port}/health/ready`)).json()) as {
        relay: { published: number };
        outbox: { depth: number };
      };
      expect(stats.relay.published).toBe(0);
      expect(stats.outbox.depth).toBeGreaterThanOrEqual(N);
      for (const app of lateApps) {
        expect({ app: app.name, alive: alive(app) }).toEqual({ app: app.name, alive: true });
        expect(await ready(app)).toBe(false);
        expect(readFileSync(app.logFile, 'utf8')).toContain('broker not reachable at start-up');
      }
    } finally {
      kafka('start');
    }

    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === N, 120_000);
    const [counts] = await h.query<{ notes: string; unpublished: string }>(
      `SELECT (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS notes,
              (SELECT count(*) FROM outbox WHERE published_at IS NULL)::text AS unpublished`,
      [ids],
    );
    expect(counts.notes).toBe(String(N));
    await h.waitUntil('the outbox to drain', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL');
      return r.n === '0';
    });
    await h.journal.waitFor(() => h.journal.finalEntriesFor(ids).size === N, 60_000);
    expect(h.journal.finalEntriesFor(ids).size).toBe(N);

    // The late starters: ready once the broker is back, and they serve decisions.
    await late.start('relay', 'relay');
    hLate = await new Harness(late.env).start();
    await hLate.waitUntil('the late apps ready', async () => (await Promise.all(lateApps.map(ready))).every(Boolean), 90_000);
    const lateDecisions = await hLate.decisions('brokerlate-run', 3);
    const lateIds = lateDecisions.map((d) => d.decisionId);
    await hLate.client.send(lateDecisions);
    await hLate.waitUntil('a final entry per late decision', async () => (await hLate.finalRows(lateIds)).length === 3, 90_000);
    expect((await hLate.finalRows(lateIds)).map((f) => f.effect_boundary)).toEqual(['effect_completed', 'effect_completed', 'effect_completed']);
    expect(lateApps.every(alive)).toBe(true);
  });
});
