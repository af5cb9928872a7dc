import { join } from 'node:path';
import { sha256Hex } from '@arvis/crypto';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';

// The authorizer's own clock runs an hour behind here (a preloaded Date shim); the database's is
// right. Every time the authorizer records or judges must be the database's: the journal's
// recordedAt, the receipt's committedAt, the policy's token expiry and the approver guard's.
const HOUR_MS = 3600_000;
const near = (iso: string | Date, to: Date) => Math.abs(new Date(iso).getTime() - to.getTime()) < 60_000;

describe('the authorizer judges time by the database clock', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('dbclock');
    authorizer = await stack.start('authorizer', 'authorizer', {
      env: {
        NODE_OPTIONS: `--require ${join(__dirname, 'support', 'shift-clock.cjs')}`,
        ARVIS_TEST_CLOCK_OFFSET_MS: String(-HOUR_MS),
        JWT_CLOCK_SKEW_S: '0',
      },
    });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const databaseNow = async () => (await h.query<{ now: Date }>('SELECT now() AS now'))[0].now;
  const api = async (path: string, token: string) =>
    (await fetch(`http://127.0.0.1:${authorizer.apiPort}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('refuses a token expired by database time (valid by the app clock), and stamps the refusal with database time', async () => {
    // Expired ten minutes ago; by the authorizer's clock it has fifty minutes left.
    const [d] = await h.decisions('dbclock-run', 1, { decisionId: 'dbclock:expired', identity: await h.token({}, -600) });
    await h.client.send([d]);
    await h.waitUntil('the decision to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'authorization_refusal', reason_code: 'identity_invalid' });
    const [row] = await h.query<{ recorded_at: Date; entry: string }>('SELECT recorded_at, entry FROM journal WHERE final_decision_id = $1', [d.decisionId]);
    const now = await databaseNow();
    expect([near(row.recorded_at, now), near(JSON.parse(row.entry).recordedAt, now)]).toEqual([true, true]);
  });

  it("commits an intent with the database's time in its receipt", async () => {
    const [d] = await h.decisions('dbclock-run', 1, { decisionId: 'dbclock:allowed' });
    await h.client.send([d]);
    await h.waitUntil('the decision to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    const [intent] = await h.query<{ committed_at: Date }>('SELECT committed_at FROM intents WHERE decision_id = $1', [d.decisionId]);
    expect(near(intent.committed_at, await databaseNow())).toBe(true);
  });

  it('refuses an approver whose token expired by database time, or whose session was revoked', async () => {
    const expired = await h.token({ principal: 'carol', roles: ['approver'] }, -600);
    const revoked = await h.token({ principal: 'carol', roles: ['approver'], sessionId: 'carol-revoked' });
    const fine = await h.token({ principal: 'carol', roles: ['approver'], sessionId: 'carol-ok' });
    await h.query('INSERT INTO revoked_sessions (session_id_hash) VALUES ($1)', [sha256Hex('carol-revoked')]);
    expect({ expired: await api('/confirmations', expired), revoked: await api('/confirmations', revoked), fine: await api('/confirmations', fine) })
      .toEqual({ expired: 401, revoked: 401, fine: 200 });
  });
});
