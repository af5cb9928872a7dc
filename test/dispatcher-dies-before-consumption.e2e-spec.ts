import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';

describe('a dispatcher killed before it consumed the capability', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('earlycrash');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('lets another dispatcher complete the effect exactly once', async () => {
    const dying = await stack.start('dispatcher', 'dispatcher-dying', {
      faults: { dispatcherCrashBeforeConsume: [{ decisionIdPrefix: 'early:' }] },
      env: { DISPATCHER_ID: 'dying' },
    });
    const [d] = await h.decisions('earlycrash-run', 1, { decisionId: 'early:1' });
    await h.client.send([d]);
    expect(await exited(dying)).toBe('SIGKILL');
    expect((await h.query<{ state: string }>('SELECT state FROM capabilities WHERE decision_id = $1', [d.decisionId]))[0].state).toBe('minted');

    await stack.start('dispatcher', 'dispatcher-survivor', { env: { DISPATCHER_ID: 'survivor' } });
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0].effect_boundary).toBe('effect_completed');
    const [row] = await h.query<{ consumed_by: string; notes: string; effects: string }>(
      `SELECT c.consumed_by,
              (SELECT count(*) FROM notes n WHERE n.capability_id = c.capability_id)::text AS notes,
              (SELECT count(*) FROM effects e WHERE e.capability_id = c.capability_id)::text AS effects
       FROM capabilities c WHERE c.decision_id = $1`,
      [d.decisionId],
    );
    expect(row).toEqual({ consumed_by: 'survivor', notes: '1', effects: '1' });
  });
});
