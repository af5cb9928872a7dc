import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { applyDatabaseRoles, applyToolMigrations, componentRole, DEFAULT_ROLE_PREFIX, PROJECT_TABLES, toolRoleName } from '@arvis/persistence';
import { localKeyEnv, localKeys } from '../scripts/local-keys';
import { Harness } from './support/harness';
import { DATA, ROOT, type RunningApp } from './support/services';
import { Stack } from './support/stack';

// The migrate step creates one database role per component and per tool package and grants each
// only what its statements need (ADR 0034). Connected as those roles: a tool body cannot touch
// the project's tables or another package's, no app role can disable the journal's triggers or
// change an entry, the CLI writes nothing; and the whole path still runs with the authorizer,
// the dispatcher, the demo package's bodies, the relay (alone, signing checkpoints) and the CLI
// each logged in as its own role.
const DEMO = '@arvis/tool-demo';
const OTHER = '@arvis-test/other-tools';
const prefix = DEFAULT_ROLE_PREFIX;
const role = {
  authorizer: componentRole(prefix, 'authorizer'),
  dispatcher: componentRole(prefix, 'dispatcher'),
  relay: componentRole(prefix, 'relay'),
  cli: componentRole(prefix, 'cli'),
  demo: toolRoleName(prefix, DEMO),
  other: toolRoleName(prefix, OTHER),
};

/** The environment's database URL, logged in as `user` (trust auth: no password). */
const as = (databaseUrl: string, user: string): string => {
  const u = new URL(databaseUrl);
  u.username = user;
  return u.toString();
};

/** A second package: its own migration and table, migrated beside the demo's. */
function otherPackage(): { name: string; migrationsDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'arvis-other-tools-'));
  mkdirSync(join(dir, '001_rows'));
  writeFileSync(join(dir, '001_rows', 'migration.sql'), 'CREATE TABLE other_rows (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL);');
  return { name: OTHER, migrationsDir: dir };
}

describe('each component connects with only the rights it needs', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let dispatcher: RunningApp;
  let relay: RunningApp;
  const clients: Client[] = [];
  const connect = async (user: string): Promise<Client> => {
    const c = new Client({ connectionString: as(stack.env.databaseUrl, user) });
    await c.connect();
    clients.push(c);
    return c;
  };
  /** The SQLSTATE a statement fails with, or 'ok'. */
  const outcome = async (c: Client, sql: string): Promise<string> =>
    c.query(sql).then(
      () => 'ok',
      (e: { code?: string }) => e.code ?? 'error',
    );

  beforeAll(async () => {
    stack = await Stack.create('dbroles');
    const url = stack.env.databaseUrl;
    await applyToolMigrations(url, [otherPackage()]);
    await applyDatabaseRoles(url, { prefix, packages: [DEMO, OTHER] });
    // The apps' in-process relays are off: the relay process alone publishes, as its own role.
    authorizer = await stack.start('authorizer', 'authorizer', {
      relay: false,
      env: { DATABASE_URL: as(url, role.authorizer), RETRY_POLL_MS: '200', CONFIRMATION_POLL_MS: '200' },
    });
    dispatcher = await stack.start('dispatcher', 'dispatcher', {
      relay: false,
      env: { DATABASE_URL: as(url, role.dispatcher), TOOL_DATABASE_URLS: JSON.stringify({ [DEMO]: as(url, role.demo) }) },
    });
    const keys = localKeyEnv(localKeys(DATA));
    relay = await stack.start('relay', 'relay', {
      env: {
        DATABASE_URL: as(url, role.relay),
        JOURNAL_CHECKPOINT_SIGNING_KEY_ID: keys.JOURNAL_CHECKPOINT_SIGNING_KEY_ID,
        JOURNAL_CHECKPOINT_SIGNING_KEY: keys.JOURNAL_CHECKPOINT_SIGNING_KEY,
        JOURNAL_CHECKPOINT_EVERY_ENTRIES: '3',
        JOURNAL_CHECKPOINT_EVERY_MS: '500',
      },
    });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await h?.close();
    await stack?.stop();
  });

  it('refuses a tool package the project\'s tables and another package\'s, and lets it write only its own', async () => {
    const demo = await connect(role.demo);
    expect(await outcome(demo, "UPDATE confirmations SET status = 'approved'")).toBe('42501');
    expect(await outcome(demo, 'SELECT * FROM decision_inbox')).toBe('42501');
    expect(await outcome(demo, 'SELECT * FROM capabilities')).toBe('42501');
    expect(await outcome(demo, 'SELECT * FROM journal')).toBe('42501');
    expect(await outcome(demo, 'SELECT * FROM other_rows')).toBe('42501');
    // It writes the body-start marker but cannot read or change the markers.
    expect(await outcome(demo, 'SELECT * FROM tool_body_starts')).toBe('42501');
    expect(await outcome(demo, "INSERT INTO tool_body_starts (capability_id, tool) VALUES ('x', 'y')")).toBe('ok');
    expect(await outcome(demo, 'DELETE FROM tool_body_starts')).toBe('42501');
    expect(await outcome(demo, "INSERT INTO notes (capability_id, idempotency_key, tenant, principal, text) VALUES ('c', 'k', 't', 'p', 'mine') ")).toBe('ok');
    expect(await outcome(demo, 'CREATE TABLE demo_extra (id INT)')).toBe('42501');

    // A package cannot be granted a project table by claiming it: the role step stops, unchanged.
    await h.query(`INSERT INTO "_arvis_tool_tables" (package, table_name) VALUES ($1, 'confirmations')`, [OTHER]);
    await expect(applyDatabaseRoles(stack.env.databaseUrl, { prefix, packages: [DEMO, OTHER] })).rejects.toThrow(
      `tool packages may not own project tables: ${OTHER} claims confirmations`,
    );
    await h.query(`DELETE FROM "_arvis_tool_tables" WHERE table_name = 'confirmations'`);

    const other = await connect(role.other);
    expect(await outcome(other, 'SELECT * FROM notes')).toBe('42501');
    expect(await outcome(other, "INSERT INTO other_rows (note) VALUES ('mine')")).toBe('ok');
    expect(await outcome(other, "UPDATE confirmations SET status = 'approved'")).toBe('42501');
  });

  it('refuses every app role the journal\'s triggers and any change to an entry, the dispatcher the tools\' tables, and the CLI any write', async () => {
    for (const user of [role.authorizer, role.dispatcher, role.relay, role.cli]) {
      const c = await connect(user);
      expect([user, await outcome(c, 'ALTER TABLE journal DISABLE TRIGGER ALL')]).toEqual([user, '42501']);
      expect([user, await outcome(c, "UPDATE journal SET entry = '{}'")]).toEqual([user, '42501']);
      expect([user, await outcome(c, 'DELETE FROM journal')]).toEqual([user, '42501']);
      expect([user, await outcome(c, 'TRUNCATE journal')]).toEqual([user, '42501']);
      expect([user, await outcome(c, 'SELECT * FROM notes')]).toEqual([user, '42501']);
    }
    const cli = await connect(role.cli);
    expect(await outcome(cli, 'SELECT count(*) FROM journal')).toBe('ok');
    expect(await outcome(cli, "UPDATE confirmations SET status = 'approved'")).toBe('42501');
    expect(await outcome(cli, "INSERT INTO revoked_sessions (session_id_hash) VALUES ('x')")).toBe('42501');
    const dispatcher = await connect(role.dispatcher);
    expect(await outcome(dispatcher, 'SELECT * FROM revoked_sessions')).toBe('42501');

    // None of the roles is a superuser or owns a table: only an owner can disable a trigger.
    const [{ owners, superusers }] = await h.query<{ owners: string[]; superusers: string[] }>(
      `SELECT (SELECT coalesce(array_agg(DISTINCT tableowner::text), '{}') FROM pg_tables WHERE schemaname = 'public' AND tableowner = ANY($1)) AS owners,
              (SELECT coalesce(array_agg(rolname::text), '{}') FROM pg_roles WHERE rolname = ANY($1) AND (rolsuper OR rolcreaterole OR rolbypassrls)) AS superusers`,
      [Object.values(role)],
    );
    expect([owners, superusers]).toEqual([[], []]);
    // Every table of the database is accounted for: a project table, a package's, or history.
    const unknown = await h.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND NOT (tablename = ANY($1))
         AND tablename NOT IN (SELECT table_name FROM "_arvis_tool_tables") ORDER BY tablename`,
      [[...PROJECT_TABLES, '_prisma_migrations', '_arvis_tool_migrations', '_arvis_tool_tables']],
    );
    expect(unknown).toEqual([]);
  });

  it('runs decisions through the whole path with every component on its own role', async () => {
    const notes = await h.decisions('roles-run', 3);
    const [flaky] = await h.decisions('roles-run-flaky', 1, { tool: 'flaky.record', payload: { key: 'roles', failTimes: 1 } });
    const [unknown] = await h.decisions('roles-run-refused', 1, { tool: 'shell.exec', payload: { cmd: 'ls' } });
    const [transfer] = await h.decisions('roles-run-transfer', 1, {
      tool: 'ledger.transfer',
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 100, currency: 'EUR', reference: 'roles' },
      riskScore: 0.2,
    });
    await h.client.send([...notes, flaky, unknown, transfer]);

    // ledger.transfer waits for an approver: approved over the authorizer's API.
    await h.waitUntil('the transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [transfer.decisionId])).length === 1);
    const [{ confirmation_id: id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [transfer.decisionId]);
    const approver = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    const approved = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${approver}` } });
    expect(approved.status).toBe(200);

    const retryId = async () => (await h.query<{ decision_id: string }>('SELECT decision_id FROM retries WHERE chain_id = $1', [flaky.decisionId]))[0]?.decision_id;
    await h.waitUntil('the flaky decision to be retried', async () => (await retryId()) !== undefined);
    const ids = [...notes, flaky, unknown, transfer].map((d) => d.decisionId);
    const all = async () => [...ids, (await retryId())!];
    await h.waitUntil('a final entry per decision', async () => (await h.finalRows(await all())).length === ids.length + 1);
    const outcomes = new Map((await h.finalRows(await all())).map((r) => [r.decision_id, [r.kind, r.effect_boundary]]));
    for (const d of notes) expect(outcomes.get(d.decisionId)).toEqual(['tool_result', 'effect_completed']);
    expect(outcomes.get(flaky.decisionId)).toEqual(['tool_result', 'effect_failed']);
    expect(outcomes.get((await retryId())!)).toEqual(['tool_result', 'effect_completed']);
    expect(outcomes.get(unknown.decisionId)).toEqual(['authorization_refusal', 'pre_effect_refusal']);
    expect(outcomes.get(transfer.decisionId)).toEqual(['tool_result', 'effect_completed']);
    const [effects] = await h.query<{ notes: string; ledger: string; markers: string }>(
      `SELECT (SELECT count(*) FROM notes WHERE text LIKE 'note %')::text AS notes,
              (SELECT count(*) FROM ledger_transfers)::text AS ledger,
              (SELECT count(*) FROM tool_body_starts WHERE capability_id <> 'x')::text AS markers`,
    );
    expect(effects).toEqual({ notes: '3', ledger: '1', markers: '6' });
    await h.waitUntil('the relay to sign a checkpoint', async () => (await h.query('SELECT 1 FROM journal_checkpoints')).length > 0);
    // Each did its work logged in as its own role (pools keep idle connections for a while).
    const users = await h.query<{ usename: string }>('SELECT DISTINCT usename::text FROM pg_stat_activity WHERE datname = current_database()');
    expect(users.map((u) => u.usename)).toEqual(expect.arrayContaining([role.authorizer, role.dispatcher, role.relay, role.demo]));

    // The CLI, read-only, verifies the chain those components wrote.
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), 'verify', '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: as(stack.env.databaseUrl, role.cli), KAFKA_BROKERS: stack.env.appEnv.KAFKA_BROKERS, ARVIS_TOPIC_PREFIX: stack.env.topicPrefix },
    });
    expect(JSON.parse(stdout)).toMatchObject({ intact: true, firstBreak: null });
  });

  it('serves every metric read from the database under each component\'s own role (ADR 0060)', async () => {
    const scrape = async (app: RunningApp) => {
      const res = await fetch(`http://127.0.0.1:${app.port}/metrics`);
      const names = (await res.text()).split('\n').filter((l) => l.startsWith('arvis_')).map((l) => l.split(/[ {]/)[0]);
      return { status: res.status, names: [...new Set(names)] };
    };
    const everywhere = ['arvis_outbox_depth', 'arvis_outbox_oldest_age_seconds', 'arvis_journal_entries_unchecked', 'arvis_journal_unchecked_age_seconds'];
    for (const app of [authorizer, relay]) {
      expect({ app: app.name, ...(await scrape(app)) }).toEqual({ app: app.name, status: 200, names: expect.arrayContaining(everywhere) });
    }
    const operations = ['arvis_effects_unknown_unresolved', 'arvis_confirmations_pending', 'arvis_confirmation_next_expiry_seconds', 'arvis_runs_audit_incomplete'];
    expect(await scrape(dispatcher)).toEqual({ status: 200, names: expect.arrayContaining([...everywhere, ...operations]) });
  });
});
