import { Client } from 'pg';
import { EffectStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { sqlOn } from './support/raw-sql';

// The claims of a slice's first group are written effect_started, so their start commits with
// the claim (ADR 0050); the others stay effect_pending until their group starts.
describe('the claims of a slice', () => {
  let env: TestEnvironment;
  let c: Client;
  const store = new EffectStore();

  beforeAll(async () => {
    env = await createEnvironment('firstgroup');
    c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
  });
  afterAll(() => c?.end());

  const rows = async () =>
    (
      await c.query<{ capability_id: string; state: string; started: boolean; deadline_s: number; waits_for: string | null }>(
        `SELECT capability_id, state, started_at IS NOT NULL AND started_at = claimed_at AS started,
                extract(epoch FROM deadline_at - claimed_at)::int AS deadline_s, waits_for
         FROM effects ORDER BY capability_id`,
      )
    ).rows;
  const effect = (id: string, key: string, startDeadlineMs?: number) => ({
    capabilityId: id,
    intentId: `i-${id}`,
    decisionId: `d-${id}`,
    idempotencyKey: key,
    holdsKey: true,
    pool: 'shared',
    ...(startDeadlineMs !== undefined ? { startDeadlineMs } : {}),
  });

  it('are started at the claim for the first group, with the started deadline, and pending for the rest', async () => {
    const duplicates = await store.claim(sqlOn(c), [effect('cap-1', 'k-1', 15_000), effect('cap-2', 'k-2')], 'disp', 30_000);
    expect(duplicates).toEqual([]);
    expect(await rows()).toEqual([
      { capability_id: 'cap-1', state: 'effect_started', started: true, deadline_s: 15, waits_for: null },
      { capability_id: 'cap-2', state: 'effect_pending', started: false, deadline_s: 30, waits_for: null },
    ]);
  });

  it('never start a duplicate of a key another effect holds: it waits for the holder, not run', async () => {
    const duplicates = await store.claim(sqlOn(c), [effect('cap-3', 'k-1', 15_000)], 'disp', 30_000);
    expect(duplicates).toEqual([{ capabilityId: 'cap-3', holderCapabilityId: 'cap-1', holderDecisionId: 'd-cap-1', holderState: 'effect_started' }]);
    expect((await rows()).find((r) => r.capability_id === 'cap-3')).toMatchObject({ state: 'effect_waiting', started: false, waits_for: 'cap-1' });
  });
});
