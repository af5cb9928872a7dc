import { readFileSync } from 'node:fs';
import { Harness } from './support/harness';
import { stopApp } from './support/services';
import { Stack } from './support/stack';

// SIGTERM in the middle of a load: both services stop cleanly with batches in flight,
// and the ones started after them finish the rest. Every decision ends once, every effect is
// completed (none left started and later called unknown), and no tool ran twice.
describe('services stopped with SIGTERM in the middle of a load', () => {
  let stack: Stack;
  let h: Harness;
  const N = 3000;
  beforeAll(async () => {
    stack = await Stack.create('graceful');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('stop cleanly, and their successors complete every decision exactly once', async () => {
    const recovery = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300' };
    const authorizer = await stack.start('authorizer', 'authorizer-1');
    const dispatcher = await stack.start('dispatcher', 'dispatcher-1', { env: recovery });
    // Log files are appended to across runs: look only at what these processes write.
    const logStart = new Map([authorizer, dispatcher].map((a) => [a.logFile, readFileSync(a.logFile, 'utf8').length]));
    const logOf = (a: typeof authorizer) => readFileSync(a.logFile, 'utf8').slice(logStart.get(a.logFile));
    const decisions = await h.decisions('graceful-run', N);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('some decisions to complete', async () => (await h.finalRows(ids)).length >= 50);
    const doneAtSigterm = (await h.finalRows(ids)).length;

    await Promise.all([stopApp(authorizer), stopApp(dispatcher)]);
    const doneAtStop = (await h.finalRows(ids)).length;
    expect(doneAtStop).toBeLessThan(N); // the stop really came in the middle of the load
    // Nest closes the app, then raises SIGTERM again so a supervisor sees why it ended; SIGKILL
    // here would mean the stop overran its grace period.
    expect([authorizer.child.signalCode, dispatcher.child.signalCode]).toEqual(['SIGTERM', 'SIGTERM']);
    for (const app of [authorizer, dispatcher]) {
      // The log file is written through a pipe: give the last lines a moment to land.
      await h.waitUntil(`${app.name} to log its stop`, () => /"msg":"(authorizer|dispatcher) stopped"/.test(logOf(app)), 5_000);
      const log = logOf(app);
      // Nothing the stop tore down under work still running: no handler fault, no failed pass.
      expect(log.split('\n').filter((l) => /handler fault|pass failed|cannot make progress/.test(l))).toEqual([]);
    }

    await stack.start('authorizer', 'authorizer-2');
    await stack.start('dispatcher', 'dispatcher-2', { env: recovery });
    await h.waitUntil('every decision to end', async () => (await h.finalRows(ids)).length === N, 120_000);
    const rows = await h.finalRows(ids);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N);
    expect(rows.filter((r) => r.effect_boundary !== 'effect_completed')).toEqual([]);
    const [counts] = await h.query<{ notes: string; effects: string; unfinished: string }>(
      `SELECT (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1))::text AS notes,
              (SELECT count(*) FROM effects WHERE decision_id = ANY($1))::text AS effects,
              (SELECT count(*) FROM effects WHERE decision_id = ANY($1) AND state <> 'effect_completed')::text AS unfinished`,
      [ids],
    );
    expect(counts).toEqual({ notes: String(N), effects: String(N), unfinished: '0' });
    console.log(`${doneAtSigterm} of ${N} decisions had ended at SIGTERM, ${doneAtStop} when both had stopped`);
  });
});
