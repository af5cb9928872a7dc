import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';

const kafka = (cmd: 'start' | 'stop') => {
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'kafka.sh'), cmd], { encoding: 'utf8', env: process.env });
  if (r.status !== 0) throw new Error(`kafka.sh ${cmd} failed: ${r.stderr}`);
};

// Stops the suite's broker for ten seconds; this spec's own database and topics keep it apart
// from the others, and the shared apps reconnect like any client would.
describe('the broker stopped for ten seconds and started again', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('brokerdown');
    await stack.start('authorizer', 'authorizer', { relay: false });
    await stack.start('dispatcher', 'dispatcher', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('leaves the relay retrying, then it catches up with nothing lost and nothing run twice', async () => {
    const N = 24;
    const decisions = (await Promise.all([0, 1, 2].map((r) => h.decisions(`brokerdown-run-${r}`, N / 3)))).flat();
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('every intent recorded', async () => {
      const [r] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM intents WHERE decision_id = ANY($1)', [ids]);
      return Number(r.n) === N;
    });

    kafka('stop');
    try {
      const relay = await stack.start('relay', 'relay');
      await new Promise((r) => setTimeout(r, 10_000));
      expect(relay.child.exitCode).toBeNull();
      const stats = (await (await fetch(`http://127.0.0.1:${relay.port}/health/ready`)).json()) as {
        relay: { published: number };
        outbox: { depth: number };
      };
      expect(stats.relay.published).toBe(0);
      expect(stats.outbox.depth).toBeGreaterThanOrEqual(N);
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
  });
});
