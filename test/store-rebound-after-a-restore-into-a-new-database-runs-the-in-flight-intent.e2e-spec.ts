import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { adminApi, cli, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { Harness } from './support/harness';
import { stopApp } from './support/services';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

const BASE_URL = 'postgresql://postgres@127.0.0.1:5432';

// A restore into another database (here CREATE DATABASE ... TEMPLATE, a byte copy as pg_dump and
// pg_restore would give) changes the store fingerprint: the database name (and, in another
// cluster, the system identifier) is in it. An intent committed before the copy names the old
// store in its receipt, so every dispatcher refuses it. The operator re-binds the store through
// the admin API (docs/operations.md); the refused intent is re-driven and runs once (ADR 0036).
describe('a store restored into a new database', () => {
  let stack: Stack;
  let restoredDb: string;
  let h: Harness | undefined;
  beforeAll(async () => {
    stack = await Stack.create('rebind');
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    const admin = new Pool({ connectionString: `${BASE_URL}/postgres`, max: 1 });
    if (restoredDb) await admin.query(`DROP DATABASE IF EXISTS "${restoredDb}" WITH (FORCE)`);
    await admin.end();
  });

  it('refuses the in-flight intent until the operator rebinds the store, then runs it once', async () => {
    const original = await stack.start('authorizer', 'authorizer-original');
    const before = await new Harness(stack.env).start();
    const olga = await before.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const [d] = await before.decisions('rebind-run', 1, { decisionId: 'rebind:1' });
    await before.client.send([d]);
    await before.waitUntil('the intent to be committed and published', async () =>
      // A published row is deleted (ADR 0048): the intent is there and its outbox row is gone.
      (await before.query('SELECT 1 FROM intents i WHERE i.decision_id = $1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position)', [d.decisionId])).length === 1,
    );
    const oldStore = (await adminApi(original)('GET', '/admin/store', olga)).body as { fingerprint: string };
    await before.close();
    await stopApp(original);

    // The copy: what a restore gives, under another database name.
    const dbName = new URL(stack.env.databaseUrl).pathname.slice(1);
    restoredDb = `${dbName}_restored`;
    const admin = new Pool({ connectionString: `${BASE_URL}/postgres`, max: 1 });
    await admin.query(`DROP DATABASE IF EXISTS "${restoredDb}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${restoredDb}" TEMPLATE "${dbName}"`);
    await admin.end();
    const restoredUrl = `${BASE_URL}/${restoredDb}`;
    const env = { DATABASE_URL: restoredUrl };
    const api = adminApi(await stack.start('authorizer', 'authorizer-restored', { env }));
    await stack.start('dispatcher', 'dispatcher-restored', { env });
    h = await new Harness({ ...stack.env, databaseUrl: restoredUrl }).start();

    // The dispatcher refuses the intent: its receipt names the store before the restore.
    // Read from the DLQ topic: its outbox row is deleted once published (ADR 0048).
    await h.waitUntil('the intent to be dead-lettered', () => h!.journal.deadLetters.filter((r) => r.sourceTopic === h!.topics.intents).length === 1);
    const view = (await api('GET', '/admin/store', olga)).body as { fingerprint: string; accepted: string[]; foreign: unknown[] };
    expect(view.fingerprint).not.toBe(oldStore.fingerprint);
    expect(view).toEqual({ fingerprint: view.fingerprint, accepted: [view.fingerprint], foreign: [{ fingerprint: oldStore.fingerprint, intents: 1, inFlight: 1 }] });
    expect((await h.finalRows([d.decisionId])).length).toBe(0);

    const note = 'restore of the nightly dump into a new database';
    expect(await api('POST', '/admin/store/rebind', await h.token({ principal: 'carol', tenant: 'acme' }), { fromFingerprint: oldStore.fingerprint, note })).toMatchObject({ status: 403 });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: oldStore.fingerprint })).toMatchObject({ status: 400 });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: view.fingerprint, note })).toMatchObject({ status: 409, body: { error: 'same_store' } });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: randomBytes(32).toString('hex'), note })).toMatchObject({ status: 409, body: { error: 'unknown_store' } });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: oldStore.fingerprint, note })).toMatchObject({
      status: 200,
      body: { fingerprint: view.fingerprint, reboundFrom: oldStore.fingerprint },
    });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: oldStore.fingerprint, note })).toMatchObject({ status: 409, body: { error: 'already_rebound' } });
    expect((await api('GET', '/admin/store', olga)).body).toEqual({ fingerprint: view.fingerprint, accepted: [oldStore.fingerprint, view.fingerprint].sort(), foreign: [] });

    // The refused intent, sent again as it was; the dispatcher reads the rebinds again on a
    // receipt it does not accept, at most every 2 s.
    await new Promise((r) => setTimeout(r, 2500));
    let dead: { partition: number; offset: string } | undefined;
    await h.waitUntil('the intent\'s dead letter on the topic', async () => {
      dead = (await readWholeTopic(stack.env.brokers, h!.topics.intentsDlq)).find((r) => r.value.includes('storeFingerprint'));
      return dead !== undefined;
    });
    expect(await api('POST', '/admin/dead-letters/redrive', olga, { dlq: 'intents', partition: dead!.partition, offset: dead!.offset })).toMatchObject({ status: 200 });
    await h.waitUntil('the intent to run', async () => (await h!.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    const [notes] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1', [d.decisionId]);
    expect(notes.n).toBe('1');

    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => (JSON.parse(r.entry) as { action: { name: string; target: string } }).action);
    expect(acts.map((a) => [a.name, a.target.split('/')[0]])).toEqual([
      ['rebind_store', `${oldStore.fingerprint}->${view.fingerprint}`],
      ['redrive_dead_letter', h.topics.intentsDlq],
    ]);
    const verify = await cli({ ...stack.env, appEnv: { ...stack.env.appEnv, DATABASE_URL: restoredUrl } }, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
