import { Client } from 'pg';
import { Harness } from './support/harness';
import { Stack, stillRunning } from './support/stack';

// Every connection the apps hold is cut several times while decisions flow (what a failover,
// a pooler restart or an operator's pg_terminate_backend does). The pools must drop the dead
// connections and carry on: no process exits, and every decision still ends exactly once.
describe('database connections of the apps terminated repeatedly under load', () => {
  let stack: Stack;
  let h: Harness;
  const N = 800;
  const ROUNDS = 5;
  // pg reads PGAPPNAME: it tags every connection of the apps (Prisma's pool, the relay's, the
  // tools', LISTEN), so the spec cuts all of theirs and none of its own.
  const APP_NAME = 'arvis-under-test-dbkill';
  beforeAll(async () => {
    stack = await Stack.create('dbkill');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('no app exits, and every decision ends with exactly one final journal entry', async () => {
    const env = { PGAPPNAME: APP_NAME };
    const apps = [
      await stack.start('authorizer', 'authorizer', { env }),
      await stack.start('dispatcher', 'dispatcher', { env }),
      await stack.start('relay', 'relay', { env }),
    ];
    const decisions = await h.decisions('dbkill-run', N);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);

    const killer = new Client({ connectionString: stack.env.databaseUrl, application_name: 'arvis-test-killer' });
    await killer.connect();
    let terminated = 0;
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const before = (await h.finalRows(ids)).length;
        // Cut while work is in flight, not after it has all finished.
        await h.waitUntil(`progress before round ${round}`, async () => {
          stillRunning(apps);
          return (await h.finalRows(ids)).length > before || before === N;
        });
        const { rows } = await killer.query<{ n: string }>(
          `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::text AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
          [APP_NAME],
        );
        terminated += Number(rows[0].n);
        await new Promise((r) => setTimeout(r, 1500));
        stillRunning(apps);
      }
    } finally {
      await killer.end();
    }

    await h.waitUntil('every decision to end', async () => {
      stillRunning(apps);
      return (await h.finalRows(ids)).length >= N;
    }, 150_000);
    const rows = await h.finalRows(ids);
    expect(rows.length).toBe(N);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N);
    stillRunning(apps);
    // The cuts really hit the apps' connections (several per round: pools, LISTEN, relays).
    expect(terminated).toBeGreaterThanOrEqual(ROUNDS * 3);
    console.log(`${terminated} backends terminated over ${ROUNDS} rounds`);
  });
});
