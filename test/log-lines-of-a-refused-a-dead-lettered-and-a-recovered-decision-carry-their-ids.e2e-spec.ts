import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Harness } from './support/harness';
import { topicsFor } from '@arvis/config';
import type { RunningApp } from './support/services';
import { exited, Stack } from './support/stack';

const RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300' };

type Line = Record<string, unknown>;
/**
 * Every line this process wrote (log files are appended to across runs: its pid tells its lines),
 * each parsed: a line that is not one JSON object fails the spec.
 */
const linesOf = (app: RunningApp): Line[] =>
  readFileSync(app.logFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`${app.name} wrote a line that is not JSON: ${l.slice(0, 200)}`);
      }
    })
    .filter((l) => l.pid === app.child.pid);

// ADR 0064: an operator's log pipeline finds a decision's lines by its ids, which are fields (not
// prose), and a stable msg says what happened. Three decisions an operator must find: one refused
// after isolation, its dead letter, and one whose effect recovery closed unknown.
describe('log lines of a refused, a dead-lettered and a recovered decision', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('loglines');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('are JSON objects naming the decision, run, tenant, tool and reason code as fields', async () => {
    const authorizer = await stack.start('authorizer', 'authorizer', { faults: { decisionHandlingFails: [{ decisionIdPrefix: 'loglines:poison' }] } });
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'loglines:crash', at: 'after_marker', signal: 'SIGKILL' }] },
      env: RECOVERY,
    });
    const [poison] = await h.decisions('loglines-refused', 1, { decisionId: 'loglines:poison' });
    const [crash] = await h.decisions('loglines-recovered', 1, { decisionId: 'loglines:crash' });
    // The producer's trace: the refused decision's lines name it.
    const traceId = randomBytes(16).toString('hex');
    await h.client.send([poison], { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    await h.client.send([crash]);
    await h.waitUntil('the refusal', async () => (await h.finalRows([poison.decisionId])).length === 1, 90_000);
    expect(await exited(dying)).toBe('SIGKILL');
    const survivor = await stack.start('dispatcher', 'dispatcher-survivor', { env: RECOVERY });
    await h.waitUntil('the recovered final entry', async () => (await h.finalRows([crash.decisionId])).length === 1);

    const tenant = (await h.query<{ tenant: string }>('SELECT tenant FROM decision_inbox WHERE decision_id = $1', [poison.decisionId]))[0].tenant;
    const a = linesOf(authorizer);
    expect(a.find((l) => l.msg === 'decision isolated and refused')).toMatchObject({
      level: 40,
      service: 'authorizer',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      decisionId: poison.decisionId,
      runId: poison.runId,
      tenant,
      tool: poison.tool,
      reasonCode: 'decision_unprocessable',
      traceId,
    });
    expect(a.find((l) => l.msg === 'message dead-lettered' && l.decisionId === poison.decisionId)).toMatchObject({
      reasonCode: 'decision_unprocessable',
      sourceTopic: topicsFor(stack.env.topicPrefix).decisions,
      partition: expect.any(Number),
      offset: expect.stringMatching(/^\d+$/),
      traceId,
    });
    await h.waitUntil('the survivor to log the recovery', async () => linesOf(survivor).some((l) => l.msg === 'effect closed by recovery' && l.decisionId === crash.decisionId), 10_000);
    expect(linesOf(survivor).find((l) => l.msg === 'effect closed by recovery' && l.decisionId === crash.decisionId)).toMatchObject({
      level: 40,
      service: 'dispatcher',
      runId: crash.runId,
      tenant,
      tool: crash.tool,
      state: 'effect_state_unknown',
      reasonCode: 'dispatcher_lost_during_effect',
    });
    // Ids never in the prose: a msg is the same text for every decision it is about.
    const all = [...a, ...linesOf(dying), ...linesOf(survivor)];
    expect(all.filter((l) => [poison.decisionId, crash.decisionId].some((id) => String(l.msg).includes(id)))).toEqual([]);
    // The ready line is structured too, and the payload of neither decision reached a line.
    expect(a.find((l) => l.msg === 'ready')).toMatchObject({ managementPort: authorizer.port, apiPort: authorizer.apiPort });
    const text = JSON.stringify(all);
    for (const d of [poison, crash]) expect(text).not.toContain(JSON.stringify(d.payload));
  });
});
