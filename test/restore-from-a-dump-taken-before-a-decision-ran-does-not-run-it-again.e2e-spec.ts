import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { adminApi, cli, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { stopApp, type RunningApp } from './support/services';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

const run = promisify(execFile);
const BASE_URL = 'postgresql://postgres@127.0.0.1:5432';
// Recovery redelivers an intent whose capability is still minted this soon (a minute by
// default): the restored capability is minted again, so the old code runs it again within seconds.
const FAST_RECOVERY = { RECOVERY_INTERVAL_MS: '300', REDELIVER_AFTER_MS: '1000' };

async function ready(app: RunningApp): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${app.port}/health/ready`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

// A database restored from a dump taken before a decision ran holds that decision's capability
// `minted` again, though the journal topic already carries its `tool_result`. The services read
// the journal topic's head at start-up, see the database's journal behind it, and refuse to work
// (readiness says why) until an operator reconciles through the admin API: the lost entries are
// taken back from the topic and the capabilities they show used are settled as consumed, so the decision
// cannot run a second time (ADR 0055).
describe('a restore from a dump taken before a decision ran', () => {
  let stack: Stack;
  let h: Harness;
  let restoredDb: string | undefined;
  const dumpDir = mkdtempSync(join(tmpdir(), 'arvis-dump-'));
  beforeAll(async () => {
    stack = await Stack.create('rollback');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    rmSync(dumpDir, { recursive: true, force: true });
    if (restoredDb) {
      const admin = new Pool({ connectionString: `${BASE_URL}/postgres`, max: 1 });
      await admin.query(`DROP DATABASE IF EXISTS "${restoredDb}" WITH (FORCE)`);
      await admin.end();
    }
  });

  const toolResultsOnTopic = async (decisionId: string) =>
    (await readWholeTopic(stack.env.brokers, h.topics.journal))
      .map((r) => JSON.parse(r.value) as { kind?: string; decisionId?: string; journalSeq?: string; capabilityId?: string })
      .filter((e) => e.kind === 'tool_result' && e.decisionId === decisionId);

  it('refuses to work until an operator reconciles, and the decision never runs twice', async () => {
    const authorizer = await stack.start('authorizer', 'authorizer-before');
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const [d] = await h.decisions('rollback-run', 1, { decisionId: 'rollback:1' });
    await h.client.send([d]);
    await h.waitUntil('the intent to be committed and published', async () =>
      (await h.query('SELECT 1 FROM intents i WHERE i.decision_id = $1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position)', [d.decisionId])).length === 1,
    );

    // The dump: the capability is minted, nothing has run.
    const dump = join(dumpDir, 'arvis.dump');
    await run('pg_dump', ['-Fc', '-f', dump, stack.env.databaseUrl]);

    const dispatcher = await stack.start('dispatcher', 'dispatcher-before', { env: FAST_RECOVERY });
    await h.waitUntil('the decision to run and its result to reach the topic', async () => (await toolResultsOnTopic(d.decisionId)).length === 1);
    const [first] = await toolResultsOnTopic(d.decisionId);
    await stopApp(dispatcher);
    await stopApp(authorizer);

    // The restore, into the same database: its fingerprint is unchanged, so no rebind is asked for.
    await run('pg_restore', ['--clean', '--if-exists', '-d', stack.env.databaseUrl, dump]);
    const [cap] = await h.query<{ state: string }>('SELECT c.state FROM capabilities c WHERE c.decision_id = $1', [d.decisionId]);
    expect(cap.state).toBe('minted');

    const authorizerAfter = await stack.start('authorizer', 'authorizer-after', { waitReady: false });
    const dispatcherAfter = await stack.start('dispatcher', 'dispatcher-after', { env: FAST_RECOVERY, waitReady: false });
    const api = adminApi(authorizerAfter);
    // Either the services refuse (readiness says why) or the decision runs a second time.
    await h.waitUntil('both services to refuse, or the decision to run again', async () => {
      const answers = await Promise.all([ready(authorizerAfter), ready(dispatcherAfter)].map((p) => p.catch(() => null)));
      if (answers.every((a) => a?.status === 503 && a.body.error === 'journal_rolled_back')) return true;
      return (await toolResultsOnTopic(d.decisionId)).length > 1;
    });
    expect((await toolResultsOnTopic(d.decisionId)).map((e) => e.journalSeq)).toEqual([first.journalSeq]);

    for (const app of [authorizerAfter, dispatcherAfter]) {
      const { status, body } = await ready(app);
      expect(status).toBe(503);
      expect(body).toMatchObject({ error: 'journal_rolled_back', rollback: { chain: 'main', topicSeq: first.journalSeq } });
      const rollback = body.rollback as { databaseSeq: string; topicSeq: string };
      expect(BigInt(rollback.databaseSeq)).toBeLessThan(BigInt(rollback.topicSeq));
    }
    // The operator sees the refusal on the admin API, and acts that would append are refused.
    expect((await api('GET', '/admin/store', olga)).body).toMatchObject({ rollback: { chain: 'main', topicSeq: first.journalSeq } });
    expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: 'a'.repeat(64), note: 'n' })).toMatchObject({ status: 503, body: { error: 'journal_rolled_back' } });
    expect(await api('POST', '/admin/sessions/revoke', olga, { tenant: 'acme', sessionId: 's-9', note: 'n' })).toMatchObject({ status: 503, body: { error: 'journal_rolled_back' } });
    expect(await api('POST', '/admin/store/reconcile-rollback', olga, {})).toMatchObject({ status: 400 });
    expect(await api('POST', '/admin/store/reconcile-rollback', await h.token({ principal: 'carol', tenant: 'acme' }), { note: 'n' })).toMatchObject({ status: 403 });

    const note = 'restored the nightly dump after the disk failure';
    const reconciled = await api('POST', '/admin/store/reconcile-rollback', olga, { note });
    expect(reconciled).toMatchObject({ status: 200, body: { chain: 'main', restoredTo: first.journalSeq, restoredEntries: 1, consumedCapabilities: [first.capabilityId], revokedCapabilities: [] } });
    expect(await api('POST', '/admin/store/reconcile-rollback', olga, { note })).toMatchObject({ status: 409, body: { error: 'no_rollback' } });

    await h.waitUntil('both services to be ready again', async () => (await Promise.all([ready(authorizerAfter), ready(dispatcherAfter)])).every((a) => a.status === 200));
    // A new decision runs: the path works again, and its result follows the restored entries.
    const [next] = await h.decisions('rollback-after', 1, { decisionId: 'rollback:2' });
    await h.client.send([next]);
    await h.waitUntil('the new decision to run', async () => (await h.finalRows([next.decisionId])).length === 1);

    // Consumed, as the topic says it was: a consumption moves only minted rows, so it cannot run again.
    const [after] = await h.query<{ state: string; consumed_by: string }>('SELECT c.state, c.consumed_by FROM capabilities c WHERE c.decision_id = $1', [d.decisionId]);
    expect(after).toEqual({ state: 'consumed', consumed_by: 'journal-restore' });
    expect((await toolResultsOnTopic(d.decisionId)).map((e) => e.journalSeq)).toEqual([first.journalSeq]);
    expect((await h.finalRows([d.decisionId])).map((r) => r.journal_seq)).toEqual([first.journalSeq]);
    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => (JSON.parse(r.entry) as { action: { name: string; target: string; note: string } }).action);
    expect(acts).toEqual([expect.objectContaining({ name: 'reconcile_rollback', target: expect.stringMatching(/^main@\d+->\d+$/), note })]);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
  // The same, restored under another database name: the store fingerprint changes, so the
  // operator would rebind it (ADR 0036) and the intent would run again. The rebind is refused
  // until the rollback is reconciled; then the intent, delivered again, runs nothing.
  it('after a restore into a new database, refuses the rebind until reconciled, and the decision never runs twice', async () => {
    await Promise.all(stack.apps.map((a) => stopApp(a)));
    const authorizer = await stack.start('authorizer', 'authorizer-old-db');
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const [d] = await h.decisions('rollback-new-db', 1, { decisionId: 'rollback:3' });
    await h.client.send([d]);
    await h.waitUntil('the intent to be committed and published', async () =>
      (await h.query('SELECT 1 FROM intents i WHERE i.decision_id = $1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = i.durable_position)', [d.decisionId])).length === 1,
    );
    const oldStore = ((await adminApi(authorizer)('GET', '/admin/store', olga)).body as { fingerprint: string }).fingerprint;
    const dump = join(dumpDir, 'arvis-2.dump');
    await run('pg_dump', ['-Fc', '-f', dump, stack.env.databaseUrl]);
    const dispatcher = await stack.start('dispatcher', 'dispatcher-old-db', { env: FAST_RECOVERY });
    await h.waitUntil('the decision to run and its result to reach the topic', async () => (await toolResultsOnTopic(d.decisionId)).length === 1);
    const [first] = await toolResultsOnTopic(d.decisionId);
    await Promise.all([stopApp(dispatcher), stopApp(authorizer)]);

    restoredDb = `${new URL(stack.env.databaseUrl).pathname.slice(1)}_restored`;
    const admin = new Pool({ connectionString: `${BASE_URL}/postgres`, max: 1 });
    await admin.query(`DROP DATABASE IF EXISTS "${restoredDb}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${restoredDb}"`);
    await admin.end();
    const restoredUrl = `${BASE_URL}/${restoredDb}`;
    await run('pg_restore', ['-d', restoredUrl, dump]);
    const db = new Pool({ connectionString: restoredUrl, max: 1 });
    try {
      const env = { DATABASE_URL: restoredUrl };
      const authorizerNew = await stack.start('authorizer', 'authorizer-new-db', { env, waitReady: false });
      const dispatcherNew = await stack.start('dispatcher', 'dispatcher-new-db', { env: { ...env, ...FAST_RECOVERY }, waitReady: false });
      const api = adminApi(authorizerNew);
      await h.waitUntil('both services to refuse, or the decision to run again', async () => {
        const answers = await Promise.all([ready(authorizerNew), ready(dispatcherNew)].map((p) => p.catch(() => null)));
        if (answers.every((a) => a?.status === 503 && a.body.error === 'journal_rolled_back')) return true;
        return (await toolResultsOnTopic(d.decisionId)).length > 1;
      });
      expect((await toolResultsOnTopic(d.decisionId)).map((e) => e.journalSeq)).toEqual([first.journalSeq]);
      const note = 'restored the dump into a new database';
      expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: oldStore, note })).toMatchObject({ status: 503, body: { error: 'journal_rolled_back' } });
      expect(await api('POST', '/admin/store/reconcile-rollback', olga, { note })).toMatchObject({ status: 200, body: { restoredTo: first.journalSeq, consumedCapabilities: [first.capabilityId] } });
      await h.waitUntil('both services to be ready again', async () => (await Promise.all([ready(authorizerNew), ready(dispatcherNew)])).every((a) => a.status === 200));
      expect(await api('POST', '/admin/store/rebind', olga, { fromFingerprint: oldStore, note })).toMatchObject({ status: 200, body: { reboundFrom: oldStore } });

      // The intent delivered again, as recovery or a re-drive would: it is handled, and runs nothing.
      const intent = (await readWholeTopic(stack.env.brokers, h.topics.intents)).find((r) => r.value.includes(`"decisionId":"${d.decisionId}"`));
      const again = await h.produceRaw(h.topics.intents, intent!.key ?? d.runId, intent!.value);
      await h.waitForGroupPast(groupOf(stack.env, 'dispatcher'), h.topics.intents, again.partition, again.offset);
      expect((await toolResultsOnTopic(d.decisionId)).map((e) => e.journalSeq)).toEqual([first.journalSeq]);
      const { rows } = await db.query<{ state: string; consumed_by: string }>('SELECT state, consumed_by FROM capabilities WHERE decision_id = $1', [d.decisionId]);
      expect(rows).toEqual([{ state: 'consumed', consumed_by: 'journal-restore' }]);
    } finally {
      await db.end();
    }
  });
});
