import { join } from 'node:path';
import { Harness } from './support/harness';
import { ROOT, stopApp } from './support/services';
import { Stack } from './support/stack';

// A rolling upgrade of a tool package: the dispatcher already loads the next version of the
// demo package (another catalog fingerprint), the authorizer still mints against the previous
// one. Without ACCEPTED_CATALOG_FINGERPRINTS those intents end frozen_surface_diverged; with the
// previous fingerprint listed there, they run, once each.
const NEXT = join(ROOT, 'test', 'support', 'tool-packages', 'demo-next');

describe('intents minted against the previous catalog, at a dispatcher that loads the next version', () => {
  let stack: Stack;
  let h: Harness;
  let previous: string;
  beforeAll(async () => {
    stack = await Stack.create('catalognext');
    await stack.start('authorizer', 'authorizer');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const notesOf = async (ids: string[]) =>
    (await h.query<{ n: string }>(`SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1)`, [ids]))[0].n;

  it('end frozen_surface_diverged where the dispatcher does not list the previous fingerprint', async () => {
    const dispatcher = await stack.start('dispatcher', 'dispatcher-next', { env: { ARVIS_TOOL_PACKAGES: NEXT } });
    const decisions = await h.decisions('catalognext-refused', 2);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 2);
    expect((await h.finalRows(ids)).map((r) => r.reason_code)).toEqual(['frozen_surface_diverged', 'frozen_surface_diverged']);
    expect(await notesOf(ids)).toBe('0');
    await stopApp(dispatcher);
    const fingerprints = await h.query<{ fp: string }>('SELECT DISTINCT catalog_fingerprint AS fp FROM intents WHERE decision_id = ANY($1)', [ids]);
    expect(fingerprints).toHaveLength(1);
    previous = fingerprints[0].fp;
  });

  it('run once each where the dispatcher lists it in ACCEPTED_CATALOG_FINGERPRINTS', async () => {
    await stack.start('dispatcher', 'dispatcher-next-accepting', { env: { ARVIS_TOOL_PACKAGES: NEXT, ACCEPTED_CATALOG_FINGERPRINTS: previous } });
    const decisions = await h.decisions('catalognext-accepted', 3);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === 3);
    expect((await h.finalRows(ids)).map((r) => [r.effect_boundary, r.reason_code])).toEqual(Array(3).fill(['effect_completed', null]));
    expect(await notesOf(ids)).toBe('3');
    const [minted] = await h.query<{ fp: string }>('SELECT DISTINCT catalog_fingerprint AS fp FROM intents WHERE decision_id = ANY($1)', [ids]);
    expect(minted.fp).toBe(previous);
  });
});
