import { Client } from 'pg';
import { CHECKPOINT_LOCK_KEY } from '@arvis/journal';
import { applyDatabaseRoles, componentRole, DEFAULT_ROLE_PREFIX, toolRoleName, type RolesReport } from '@arvis/persistence';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// PostgreSQL checks no rights on advisory-lock keys: any login that may call the functions can
// take the relay's key and hold it from an idle session, and no outbox row is published until it
// lets go (ADR 0052). The migrate step leaves the functions to the components that take locks and
// the database to the roles it creates. Keys as the code defines them: the relay's
// (libs/outbox/src/outbox.relay.ts), the retention pruner's (libs/lifecycle/src/retention-pruner.ts),
// the migrations' (libs/persistence/src/migrations/apply-migrations.ts) and the checkpoint writer's.
const RELAY_KEY = 7_276_873_010;
const PRUNER_KEY = 0x41524554;
const MIGRATION_KEY = 7_276_873_001;
const prefix = DEFAULT_ROLE_PREFIX;
const DEMO = '@arvis/tool-demo';
const role = {
  authorizer: componentRole(prefix, 'authorizer'),
  dispatcher: componentRole(prefix, 'dispatcher'),
  relay: componentRole(prefix, 'relay'),
  cli: componentRole(prefix, 'cli'),
  demo: toolRoleName(prefix, DEMO),
};
// A login the migrations did not create: its name is this checkout's own (roles are cluster-wide).
const outsider = `${process.env.ARVIS_TEST_NAMESPACE ?? ''}arvis_outsider`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();

const as = (databaseUrl: string, user: string): string => {
  const u = new URL(databaseUrl);
  u.username = user;
  return u.toString();
};

describe('no other login can take the relay\'s or the pruner\'s lock', () => {
  let stack: Stack;
  let h: Harness;
  let report: RolesReport;
  const clients: Client[] = [];
  const connect = async (user: string): Promise<Client> => {
    const c = new Client({ connectionString: as(stack.env.databaseUrl, user) });
    await c.connect();
    clients.push(c);
    return c;
  };
  /** The SQLSTATE a statement fails with, or 'ok'. */
  const outcome = async (c: Client, sql: string, params: unknown[] = []): Promise<string> =>
    c.query(sql, params).then(
      () => 'ok',
      (e: { code?: string }) => e.code ?? 'error',
    );

  beforeAll(async () => {
    stack = await Stack.create('advlock');
    const url = stack.env.databaseUrl;
    report = await applyDatabaseRoles(url, { prefix, packages: [DEMO] });
    // Each service as its own role, with its in-process relay: the relay's key is theirs to take.
    await stack.start('authorizer', 'authorizer', { env: { DATABASE_URL: as(url, role.authorizer) } });
    await stack.start('dispatcher', 'dispatcher', { env: { DATABASE_URL: as(url, role.dispatcher), TOOL_DATABASE_URLS: JSON.stringify({ [DEMO]: as(url, role.demo) }) } });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await h?.query(`DROP ROLE IF EXISTS "${outsider}"`).catch(() => undefined);
    await h?.close();
    await stack?.stop();
  });

  it('refuses the analysts\' read-only login every lock key, and decisions still finish', async () => {
    // Left open and idle after its attempts, as the analyst's session was.
    const analyst = await connect(role.cli);
    const attempts = {
      relay: await outcome(analyst, 'SELECT pg_try_advisory_lock($1::bigint)', [RELAY_KEY]),
      relayShared: await outcome(analyst, 'SELECT pg_try_advisory_lock_shared($1::bigint)', [RELAY_KEY]),
      pruner: await outcome(analyst, 'SELECT pg_try_advisory_lock($1::bigint)', [PRUNER_KEY]),
      checkpoint: await outcome(analyst, 'SELECT pg_try_advisory_lock($1::bigint)', [CHECKPOINT_LOCK_KEY]),
      migration: await outcome(analyst, 'SELECT pg_advisory_lock($1::bigint)', [MIGRATION_KEY]),
      keyPair: await outcome(analyst, 'SELECT pg_try_advisory_lock(1, 2)'),
    };

    const decisions = await h.decisions('advlock', 5);
    await h.client.send(decisions);
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(ids)).length === ids.length, 25_000).catch(() => undefined);
    const finished = (await h.finalRows(ids)).filter((r) => r.kind === 'tool_result' && r.effect_boundary === 'effect_completed').length;

    const refused = '42501'; // insufficient_privilege: permission denied for function
    expect({ attempts, finished }).toEqual({
      attempts: { relay: refused, relayShared: refused, pruner: refused, checkpoint: refused, migration: refused, keyPair: refused },
      finished: 5,
    });
    // Every outbox row those decisions wrote has been published. A final entry commits before the
    // relay sends its copy, so the last copies may still be on their way: wait for them first.
    const unpublished = () => h.query('SELECT seq FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL');
    await h.waitUntil('the outbox to be published', async () => (await unpublished()).length === 0, 15_000).catch(() => undefined);
    expect(await unpublished()).toEqual([]);
  });

  it('leaves the lock keys to the components that take them, and the database to the roles the migrations created', async () => {
    expect(report.publicRevoked).toEqual({ advisoryLocks: true, connect: true });
    for (const user of [role.authorizer, role.dispatcher, role.relay]) {
      const c = await connect(user);
      expect([user, await outcome(c, 'SELECT pg_try_advisory_xact_lock($1::bigint)', [RELAY_KEY])]).toEqual([user, 'ok']);
    }
    // The authorizer's pruner holds its key for a pass (session lock) and lets it go.
    const authorizer = await connect(role.authorizer);
    expect(await outcome(authorizer, 'SELECT pg_try_advisory_lock($1::bigint), pg_advisory_unlock($1::bigint)', [PRUNER_KEY])).toBe('ok');
    // A tool package's bodies take no lock.
    expect(await outcome(await connect(role.demo), 'SELECT pg_try_advisory_lock($1::bigint)', [RELAY_KEY])).toBe('42501');
    // The analyst may connect, but not create temporary tables.
    expect(await outcome(await connect(role.cli), 'CREATE TEMP TABLE mine (id INT)')).toBe('42501');

    // A login the migrations did not create may not connect at all.
    await h.query(`DROP ROLE IF EXISTS "${outsider}"`);
    await h.query(`CREATE ROLE "${outsider}" LOGIN`);
    const stranger = new Client({ connectionString: as(stack.env.databaseUrl, outsider) });
    const refusedAt = await stranger.connect().then(
      () => 'connected',
      (e: { code?: string }) => e.code ?? 'error',
    );
    await stranger.end().catch(() => undefined);
    expect(refusedAt).toBe('42501');
  });
});
