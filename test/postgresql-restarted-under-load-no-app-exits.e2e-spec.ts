import { execFileSync } from 'node:child_process';
import { Harness } from './support/harness';
import { Stack, stillRunning } from './support/stack';

// PostgreSQL 15 is the machine's only cluster and other suites use it: this spec restarts it
// exactly once, briefly, and the finally block makes sure it is running again whatever happens.
const CLUSTER = ['--skip-systemctl-redirect', '15', 'main'];
const pgctl = (action: string) => execFileSync('pg_ctlcluster', [...CLUSTER, action], { stdio: 'pipe', timeout: 60_000 });
const pgIsUp = () => {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-t', '2'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

// The database goes away under every connection at once, and refuses new ones until it is back.
// The apps pause (their batches fail and are retried) and carry on: no exit, nothing lost or doubled.
describe('PostgreSQL restarted once under load', () => {
  let stack: Stack;
  let h: Harness;
  const N = 800;
  beforeAll(async () => {
    stack = await Stack.create('pgrestart');
    h = await new Harness(stack.env).start();
    // The harness's own idle connections are cut by the restart too.
    h.db.on('error', () => undefined);
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('no app exits, and every decision ends with exactly one final journal entry', async () => {
    const apps = [
      await stack.start('authorizer', 'authorizer'),
      await stack.start('dispatcher', 'dispatcher'),
      await stack.start('relay', 'relay'),
    ];
    const decisions = await h.decisions('pgrestart-run', N);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('some decisions to end', async () => (await h.finalRows(ids)).length >= 50);
    const doneBefore = (await h.finalRows(ids)).length;

    try {
      pgctl('restart');
    } finally {
      if (!pgIsUp()) pgctl('start');
    }
    stillRunning(apps);

    await h.waitUntil(
      'every decision to end',
      async () => {
        stillRunning(apps);
        return (await h.finalRows(ids).catch(() => [])).length >= N;
      },
      150_000,
    );
    const rows = await h.finalRows(ids);
    expect(doneBefore).toBeLessThan(N); // the restart came in the middle of the load
    expect(rows.length).toBe(N);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N);
    stillRunning(apps);
    console.log(`${doneBefore} of ${N} decisions had ended before the restart`);
  });
});
