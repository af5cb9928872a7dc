import { Client } from 'pg';
import { Harness } from './support/harness';
import { Stack, stillRunning } from './support/stack';

// A database outage of a few seconds while the dispatcher is starting bodies and recording their
// results. The effects that happened must keep their results: recording waits the outage out
// instead of giving up after about two seconds and marking the run audit-incomplete.
describe('a short database outage while results are being recorded', () => {
  let stack: Stack;
  let h: Harness;
  const WAVES = 12;
  const PER_WAVE = 100;
  const N = WAVES * PER_WAVE;
  const APP_NAME = 'arvis-under-test-outage';
  beforeAll(async () => {
    stack = await Stack.create('recordoutage');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('ends every decision once, none audit-incomplete and none unknown, and no app exits', async () => {
    const env = { PGAPPNAME: APP_NAME, TOOL_CONCURRENCY: '4' };
    const apps = [await stack.start('authorizer', 'authorizer', { env }), await stack.start('dispatcher', 'dispatcher', { env })];
    const decisions = await h.decisions('recordoutage-run', N);
    const ids = decisions.map((d) => d.decisionId);
    // A steady stream, so that bodies are running and results being recorded when the outage starts.
    const sending = (async () => {
      for (let w = 0; w < WAVES; w++) {
        await h.client.send(decisions.slice(w * PER_WAVE, (w + 1) * PER_WAVE));
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const admin = new Client({ connectionString: stack.env.databaseUrl.replace(/\/[^/]+$/, '/postgres'), application_name: 'arvis-test-outage' });
    await admin.connect();
    const db = stack.env.databaseUrl.split('/').pop()!;
    try {
      await h.waitUntil('results being recorded', async () => (await h.finalRows(ids)).length >= PER_WAVE);
      // Hold the journal head, so that the next recording transaction is caught mid-way (results
      // are journaled last in it), then cut it: the outage starts while results are being recorded.
      const head = new Client({ connectionString: stack.env.databaseUrl, application_name: 'arvis-test-head' });
      await head.connect();
      await head.query('BEGIN');
      await head.query('SELECT 1 FROM journal_head WHERE shard = 0 FOR UPDATE');
      await h.waitUntil('a recording transaction waiting on the journal head', async () => {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND wait_event_type = 'Lock'`,
          [db, APP_NAME],
        );
        return rows.length > 0;
      });
      // The outage: no new connections to the apps' database, and every open one cut.
      await admin.query(`ALTER DATABASE "${db}" WITH ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`, [db, APP_NAME]);
      await head.query('COMMIT');
      await head.end();
      await new Promise((r) => setTimeout(r, 6000));
    } finally {
      await admin.query(`ALTER DATABASE "${db}" WITH ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await sending;
    stillRunning(apps);
    await h.waitUntil('every decision to end', async () => {
      stillRunning(apps);
      return (await h.finalRows(ids)).length >= N;
    }, 150_000);
    const rows = await h.finalRows(ids);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N);
    expect(rows).toHaveLength(N);
    expect(rows.filter((r) => r.effect_boundary === 'effect_state_unknown')).toEqual([]);
    expect(await h.query(`SELECT run_id FROM runs WHERE audit_incomplete`)).toEqual([]);
    expect(await h.query(`SELECT decision_id FROM journal WHERE kind = 'audit_incomplete'`)).toEqual([]);
    // Each decision's outcome is its true boundary: completed, or failed because the tool itself
    // could not reach its table during the outage; never more than one note per decision.
    expect(new Set(rows.map((r) => r.effect_boundary))).toEqual(new Set(rows.some((r) => r.effect_boundary === 'effect_failed') ? ['effect_completed', 'effect_failed'] : ['effect_completed']));
    const [{ n }] = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM (SELECT capability_id FROM notes GROUP BY capability_id HAVING count(*) > 1) x`,
    );
    expect(n).toBe('0');
    stillRunning(apps);
  });
});
