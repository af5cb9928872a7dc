import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { handleClientErrors } from '../pg-errors';
import { MigrationError, MIGRATION_LOCK_KEY } from './apply-migrations';
import { TOOL_TABLES_DDL } from './apply-tool-migrations';

/**
 * Least-privilege database roles (ADR 0034, docs/database-roles.md). The migrating user owns every
 * table; each component logs in as its own role, granted only what its statements need. Roles are
 * cluster-wide and created idempotently; grants are per database and recomputed on every run.
 */
export type Privilege = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
export type Component = 'authorizer' | 'dispatcher' | 'relay' | 'cli';

const R: Privilege[] = ['SELECT'];
const RI: Privilege[] = ['SELECT', 'INSERT'];
const RU: Privilege[] = ['SELECT', 'UPDATE'];
const RIU: Privilege[] = ['SELECT', 'INSERT', 'UPDATE'];
const RIUD: Privilege[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];
const RD: Privilege[] = ['SELECT', 'DELETE'];
const RID: Privilege[] = ['SELECT', 'INSERT', 'DELETE'];
const RUD: Privilege[] = ['SELECT', 'UPDATE', 'DELETE'];

/** Tables the project's migrations create; the CLI reads every one of them, nothing else. */
export const PROJECT_TABLES = [
  'approver_notifications', 'capabilities', 'confirmations', 'consent_grants', 'console_sessions', 'dead_letter_dispositions', 'decision_inbox', 'effects', 'egress_policies', 'intents',
  'journal', 'journal_checkpoints', 'journal_head', 'outbox', 'retries', 'revoked_sessions', 'runs',
  'retention_horizon', 'store_identity', 'store_rebinds', 'tool_body_starts',
] as const;

// What both services do besides their own work: append to the journal (its head row is locked
// FOR UPDATE, which needs UPDATE), sign checkpoints, run the in-process relay (outbox: enqueue,
// read, mark, quarantine, prune) and read the store fingerprint.
const JOURNALING: Record<string, Privilege[]> = {
  journal: RI,
  journal_head: RU,
  journal_checkpoints: RI,
  outbox: RIUD,
  store_identity: R,
};

/**
 * Every project table and what each component may do with it, worked out from the statements
 * each one runs (the stores of libs/lifecycle, libs/journal, libs/outbox, and each app's use
 * cases). SELECT comes with every write: WHERE, RETURNING and ON CONFLICT read the row.
 * `journal` gets no UPDATE or DELETE anywhere: besides its triggers, no role but the owner can.
 */
export const PROJECT_GRANTS: Record<Component, Record<string, Privilege[]>> = {
  // DELETE and the retention_horizon row: the retention pruner runs in the authorizer (ADR 0041);
  // it deletes only finished decisions' rows past their windows. The admin API (ADR 0036) writes
  // sessions, consents, egress, resolutions of unknown effects, dead-letter dispositions, rebinds.
  authorizer: {
    ...JOURNALING,
    decision_inbox: RIUD,
    intents: RID,
    capabilities: RIUD,
    confirmations: RIUD,
    retries: RUD,
    effects: RUD,
    retention_horizon: RU,
    consent_grants: RID,
    egress_policies: RID,
    revoked_sessions: RI,
    dead_letter_dispositions: RI,
    store_rebinds: RI,
    // Approver console sessions (ADR 0037): signed in, read per request, revoked, ended ones pruned.
    console_sessions: RIUD,
    // Approver webhooks (ADR 0070): enqueued, claimed, recorded; retention deletes them with their
    // confirmation (ADR 0086).
    approver_notifications: RIUD,
    // Retention deletes the body-start markers of pruned capabilities (never recovery's fences).
    tool_body_starts: RD,
  },
  dispatcher: {
    ...JOURNALING,
    decision_inbox: R,
    intents: RU,
    capabilities: RU,
    effects: RIU,
    confirmations: RU,
    retries: RIU,
    runs: RIU,
    store_rebinds: R,
    // Recovery takes the body-start slot of a lost effect and reads whether it got it (ADR 0056).
    tool_body_starts: RI,
  },
  // The relay on its own (apps/relay): publishes outbox rows and signs checkpoints.
  relay: { journal: R, journal_head: R, journal_checkpoints: RI, outbox: RIUD, store_identity: R, store_rebinds: R },
  // Read-only: every project table, no tool table.
  cli: Object.fromEntries(PROJECT_TABLES.map((t) => [t, R])),
};


/**
 * What every tool package's role gets besides its own tables: the dispatcher writes the
 * body-start marker on the package's own connection (ADR 0021), so INSERT, never SELECT.
 */
export const TOOL_COMMON_GRANTS: Record<string, Privilege[]> = { tool_body_starts: ['INSERT'] };

export const DEFAULT_ROLE_PREFIX = 'arvis_';
/** Lower case, so the names need no quoting; short enough to leave room for the component. */
export const ROLE_PREFIX_PATTERN = /^[a-z][a-z0-9_]{0,23}$/;

/** `@arvis/tool-demo` → `<prefix>tool_arvis_tool_demo`; hashed when too long for an identifier. */
export function toolRoleName(prefix: string, packageName: string): string {
  const slug = packageName.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'package';
  const name = `${prefix}tool_${slug}`;
  if (name.length <= 63) return name;
  const hash = createHash('sha256').update(packageName).digest('hex').slice(0, 10);
  return `${name.slice(0, 52)}_${hash}`;
}

export const componentRole = (prefix: string, component: Component): string => `${prefix}${component}`;

export interface RolesReport {
  roles: string[];
  created: string[];
  toolTables: Record<string, string[]>;
  /**
   * Whether PUBLIC lost EXECUTE on the advisory-lock functions and CONNECT/TEMP on the database
   * (ADR 0052). False when the migrating user could not revoke them (not a superuser, e.g. on a
   * managed PostgreSQL): a warning is logged and every login keeps what PostgreSQL gives it.
   */
  publicRevoked: { advisoryLocks: boolean; connect: boolean };
}

/**
 * The components that take advisory locks: the relay's (in-process or alone), the checkpoint
 * writer's and, in the authorizer, the retention pruner's. The CLI and tool packages take none.
 */
export const LOCK_TAKERS: readonly Component[] = ['authorizer', 'dispatcher', 'relay'];

export interface RolesOptions {
  prefix: string;
  /** Package names loaded by ARVIS_TOOL_PACKAGES: each gets a role and its recorded tables. */
  packages: readonly string[];
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/**
 * Creates the role unless it exists. Roles are cluster-wide: migrate runs on other databases of
 * the cluster may create the same one at the same moment (advisory locks are per database), so a
 * duplicate is caught rather than prevented. LOGIN without a password: operators set one
 * (ALTER ROLE ... PASSWORD) or a DBA creates the roles beforehand; either way nothing here
 * touches an existing role.
 */
async function ensureRole(client: Client, role: string): Promise<boolean> {
  const found = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (found.rowCount) return false;
  try {
    await client.query(`CREATE ROLE ${q(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS`);
    return true;
  } catch (e) {
    // 42710 duplicate_object; 23505 when the other CREATE ROLE committed while this one waited.
    if (['42710', '23505'].includes((e as { code?: string }).code ?? '')) return false;
    throw new MigrationError(`cannot create database role ${role}: ${(e as Error).message} (the migrating user needs CREATEROLE, or create the roles beforehand)`);
  }
}

/** Which relations of the schema exist, and their sequences (serial and identity columns). */
async function schemaObjects(client: Client): Promise<{ tables: Set<string>; sequences: Map<string, string[]> }> {
  const { rows } = await client.query<{ relname: string; seqs: string[] | null }>(`
    SELECT c.relname, array_agg(s.relname::text) FILTER (WHERE s.relname IS NOT NULL) AS seqs
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_depend d ON d.refobjid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
    LEFT JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    GROUP BY c.relname`);
  return { tables: new Set(rows.map((r) => r.relname)), sequences: new Map(rows.map((r) => [r.relname, r.seqs ?? []])) };
}

type Grants = Record<string, Privilege[]>;
type SchemaObjects = Awaited<ReturnType<typeof schemaObjects>>;

/**
 * Revokes what the role had on the schema's tables and sequences, then grants exactly `grants`
 * (tables that do not exist are skipped), with USAGE on the sequences of the tables it inserts
 * into. In the caller's transaction: other sessions see the old rights until it commits.
 */
async function grantExactly(client: Client, schema: string, role: string, grants: Grants, objects: SchemaObjects): Promise<void> {
  await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${q(schema)} FROM ${q(role)}`);
  await client.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${q(schema)} FROM ${q(role)}`);
  for (const [table, privileges] of Object.entries(grants)) {
    if (!objects.tables.has(table)) continue;
    await client.query(`GRANT ${privileges.join(', ')} ON TABLE ${q(schema)}.${q(table)} TO ${q(role)}`);
    if (!privileges.includes('INSERT')) continue;
    for (const seq of objects.sequences.get(table) ?? []) await client.query(`GRANT USAGE ON SEQUENCE ${q(schema)}.${q(seq)} TO ${q(role)}`);
  }
}

/** The tables recorded for each package; a package may not claim a project table. */
async function toolTables(client: Client, packages: readonly string[]): Promise<Record<string, string[]>> {
  await client.query(TOOL_TABLES_DDL);
  const { rows } = await client.query<{ package: string; table_name: string }>(
    'SELECT package, table_name FROM "_arvis_tool_tables" WHERE package = ANY($1::text[]) ORDER BY table_name',
    [[...packages]],
  );
  const reserved = new Set<string>([...PROJECT_TABLES, '_prisma_migrations', '_arvis_tool_migrations', '_arvis_tool_tables']);
  const claimed = rows.filter((r) => reserved.has(r.table_name));
  if (claimed.length > 0) {
    throw new MigrationError(`tool packages may not own project tables: ${claimed.map((r) => `${r.package} claims ${r.table_name}`).join(', ')}`);
  }
  const byPackage: Record<string, string[]> = Object.fromEntries(packages.map((p) => [p, []]));
  for (const r of rows) byPackage[r.package].push(r.table_name);
  return byPackage;
}

/**
 * Creates the roles (cluster-wide, idempotent), then, in one transaction under the migration
 * lock (two grants on one table at once fail with "tuple concurrently updated"), gives each
 * exactly its rights on this database. Run after the project's and the packages' migrations.
 */
export async function applyDatabaseRoles(databaseUrl: string, opts: RolesOptions, log: (line: string) => void = () => undefined): Promise<RolesReport> {
  if (!ROLE_PREFIX_PATTERN.test(opts.prefix)) throw new MigrationError(`role prefix "${opts.prefix}" must match ${ROLE_PREFIX_PATTERN}`);
  const components = Object.keys(PROJECT_GRANTS) as Component[];
  const tools = new Map(opts.packages.map((p) => [p, toolRoleName(opts.prefix, p)]));
  const roles = [...components.map((c) => componentRole(opts.prefix, c)), ...tools.values()];
  const client = handleClientErrors(new Client({ connectionString: databaseUrl }), 'migrate', () => undefined);
  await client.connect();
  const created: string[] = [];
  try {
    for (const role of roles) if (await ensureRole(client, role)) created.push(role);
    for (const role of created) log(`created database role ${role}`);
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
    await revokePublicCreate(client, schema);
    const objects = await schemaObjects(client);
    const owned = await toolTables(client, opts.packages);
    for (const c of components) await grantExactly(client, schema, componentRole(opts.prefix, c), PROJECT_GRANTS[c], objects);
    for (const [pkg, role] of tools) {
      const own = Object.fromEntries(owned[pkg].map((t) => [t, RIUD]));
      await grantExactly(client, schema, role, { ...TOOL_COMMON_GRANTS, ...own }, objects);
    }
    const publicRevoked = await guardLocksAndConnect(client, roles, LOCK_TAKERS.map((c) => componentRole(opts.prefix, c)), log);
    await client.query('COMMIT');
    return { roles, created, toolTables: owned, publicRevoked };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e instanceof MigrationError ? e : new MigrationError(`granting the database roles failed (nothing changed): ${(e as Error).message}`);
  } finally {
    await client.end();
  }
}

/** Before PostgreSQL 15 anyone may create tables in `public`; the roles must not. */
async function revokePublicCreate(client: Client, schema: string): Promise<void> {
  const { rows } = await client.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_namespace, aclexplode(coalesce(nspacl, acldefault('n', nspowner))) a
      WHERE nspname = $1 AND a.grantee = 0 AND a.privilege_type = 'CREATE') AS open`,
    [schema],
  );
  if (rows[0].open) await client.query(`REVOKE CREATE ON SCHEMA ${q(schema)} FROM PUBLIC`);
}

/** Every advisory-lock function of this database's catalog: each variant (bigint, int pair, shared, xact, try, unlock). */
const ADVISORY_FUNCTIONS_SQL = `SELECT p.oid::regprocedure::text AS fn FROM pg_proc p
  WHERE p.pronamespace = 'pg_catalog'::regnamespace AND (p.proname LIKE 'pg\\_advisory\\_%' OR p.proname LIKE 'pg\\_try\\_advisory\\_%')
  ORDER BY 1`;

/**
 * ADR 0052. PostgreSQL checks no rights on advisory-lock keys: any login that may call the
 * functions can hold the relay's key and stop publishing. So EXECUTE on them goes from PUBLIC to
 * the components that take locks (and the database owner, which migrates), and CONNECT and TEMP
 * on the database from PUBLIC to the roles created here. Function ACLs are per database, like
 * the grants. Only a superuser can revoke what the bootstrap superuser granted on pg_catalog
 * functions; for anyone else REVOKE is a warning that changes nothing, so the result is read
 * back: a component left without a right it needs stops the migration, PUBLIC keeping its
 * rights is logged as a warning and reported (a managed PostgreSQL cannot do better).
 */
async function guardLocksAndConnect(client: Client, roles: string[], lockTakers: string[], log: (line: string) => void): Promise<RolesReport['publicRevoked']> {
  const fns = (await client.query<{ fn: string }>(ADVISORY_FUNCTIONS_SQL)).rows.map((r) => r.fn);
  const [{ db, owner, owner_is_super: ownerIsSuper, super: isSuper }] = (await client.query<{ db: string; owner: string; owner_is_super: boolean; super: boolean }>(
    `SELECT current_database() AS db, r.rolname AS owner, r.rolsuper AS owner_is_super,
            (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super
       FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE d.datname = current_database()`,
  )).rows;
  const list = fns.join(', ');
  await client.query(`REVOKE EXECUTE ON FUNCTION ${list} FROM PUBLIC`);
  await client.query(`GRANT EXECUTE ON FUNCTION ${list} TO ${lockTakers.map(q).join(', ')}`);
  // The owner migrates (the migration lock) and may grant the functions to roles added later.
  if (isSuper && !ownerIsSuper) await client.query(`GRANT EXECUTE ON FUNCTION ${list} TO ${q(owner)} WITH GRANT OPTION`);
  await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${q(db)} FROM PUBLIC`);
  await client.query(`GRANT CONNECT ON DATABASE ${q(db)} TO ${roles.map(q).join(', ')}`);
  return checkGuard(client, { fns, roles, lockTakers, db, log });
}

/** Reads back what the REVOKEs and GRANTs achieved (they only warn when the user may not make them). */
async function checkGuard(client: Client, g: { fns: string[]; roles: string[]; lockTakers: string[]; db: string; log: (line: string) => void }): Promise<RolesReport['publicRevoked']> {
  const { rows } = await client.query<{ public_locks: boolean; public_connect: boolean; no_locks: string[]; no_connect: string[] }>(
    `SELECT EXISTS (SELECT 1 FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
              WHERE p.oid = ANY($1::regprocedure[]) AND a.grantee = 0) AS public_locks,
            EXISTS (SELECT 1 FROM pg_database d, aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a
              WHERE d.datname = $4 AND a.grantee = 0 AND a.privilege_type IN ('CONNECT', 'TEMPORARY')) AS public_connect,
            ARRAY(SELECT r FROM unnest($2::text[]) r WHERE EXISTS (SELECT 1 FROM unnest($1::regprocedure[]) f WHERE NOT has_function_privilege(r, f, 'EXECUTE'))) AS no_locks,
            ARRAY(SELECT r FROM unnest($3::text[]) r WHERE NOT has_database_privilege(r, $4, 'CONNECT')) AS no_connect`,
    [g.fns, g.lockTakers, g.roles, g.db],
  );
  const r = rows[0];
  if (r.no_locks.length > 0 || r.no_connect.length > 0) {
    const what = [...r.no_locks.map((x) => `${x} may not call the advisory-lock functions`), ...r.no_connect.map((x) => `${x} may not connect`)].join('; ');
    throw new MigrationError(`${what}: the migrating user cannot grant it; a superuser must run the migrate step once, or GRANT it (docs/database-roles.md)`);
  }
  if (r.public_locks) g.log(`WARNING: every login of ${g.db} may still take advisory locks (the relay's among them): only a superuser can revoke EXECUTE on them from PUBLIC (ADR 0052, docs/database-roles.md)`);
  if (r.public_connect) g.log(`WARNING: every login may still connect to ${g.db} and create temporary tables: only its owner can revoke CONNECT and TEMP from PUBLIC`);
  return { advisoryLocks: !r.public_locks, connect: !r.public_connect };
}
