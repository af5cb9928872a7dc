import { Client } from 'pg';
import { handleClientErrors } from '../pg-errors';
import { listMigrations, MigrationError, MIGRATION_LOCK_KEY } from './apply-migrations';

/** What the migrate step needs of a tool package (see ToolPackage in @arvis/tool-sdk). */
export interface MigratingPackage {
  readonly name: string;
  readonly migrationsDir?: string;
}

export interface ToolMigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

// The tool packages' history, beside Prisma's: one row per package and migration, with the
// SHA-256 of its migration.sql, as `_prisma_migrations` records the project's own.
const HISTORY_DDL = `CREATE TABLE IF NOT EXISTS "_arvis_tool_migrations" (
  "package" TEXT NOT NULL,
  "migration_name" TEXT NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY ("package", "migration_name")
)`;

// Which package each table belongs to: the database role of a package is granted exactly these
// (database-roles.ts). Filled with the relations each of its migrations created; a package that
// adopts tables created before it (the demo's) records them in a migration of its own.
export const TOOL_TABLES_DDL = `CREATE TABLE IF NOT EXISTS "_arvis_tool_tables" (
  "package" TEXT NOT NULL,
  "table_name" TEXT NOT NULL,
  "recorded_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY ("table_name")
)`;

// Tables, views and foreign tables in the schema the migrations run in.
const RELATIONS_SQL = `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`;

const relations = async (client: Client): Promise<Set<string>> =>
  new Set((await client.query<{ relname: string }>(RELATIONS_SQL)).rows.map((r) => r.relname));

const noWarn = () => undefined;

async function applyOne(client: Client, pkg: string, m: { name: string; sql: string; checksum: string }): Promise<void> {
  await client.query('BEGIN');
  try {
    const before = await relations(client);
    await client.query(m.sql);
    const created = [...(await relations(client))].filter((r) => !before.has(r));
    await client.query(
      `INSERT INTO "_arvis_tool_tables" (package, table_name) SELECT $1, unnest($2::text[])`,
      [pkg, created],
    );
    await client.query('INSERT INTO "_arvis_tool_migrations" (package, migration_name, checksum) VALUES ($1, $2, $3)', [pkg, m.name, m.checksum]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    const err = e as { message?: string; position?: string };
    throw new MigrationError(
      `tool migration ${pkg}/${m.name} failed and was rolled back (database unchanged): ${err.message}` + (err.position ? ` at character ${err.position}` : ''),
    );
  }
}

/**
 * Applies each package's migrations (after the project's own, which the caller has applied), in
 * name order per package, each once, in its own transaction with its history row. An applied
 * migration whose file changed since is refused, as for the project's own, before any runs.
 */
export async function applyToolMigrations(
  databaseUrl: string,
  packages: readonly MigratingPackage[],
  log: (line: string) => void = () => undefined,
): Promise<ToolMigrationReport> {
  const withMigrations = packages.filter((p) => p.migrationsDir !== undefined);
  const report: ToolMigrationReport = { applied: [], alreadyApplied: [] };
  if (withMigrations.length === 0) return report;
  const client = handleClientErrors(new Client({ connectionString: databaseUrl }), 'migrate', noWarn);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(HISTORY_DDL);
    await client.query(TOOL_TABLES_DDL);
    const { rows } = await client.query<{ package: string; migration_name: string; checksum: string }>(
      'SELECT package, migration_name, checksum FROM "_arvis_tool_migrations"',
    );
    const history = new Map(rows.map((r) => [`${r.package}\u0000${r.migration_name}`, r.checksum]));
    // Every applied file is checked before anything runs: a changed one stops the whole step.
    const pending: { pkg: string; m: ReturnType<typeof listMigrations>[number] }[] = [];
    for (const pkg of withMigrations) {
      for (const m of listMigrations(pkg.migrationsDir!)) {
        const checksum = history.get(`${pkg.name}\u0000${m.name}`);
        if (checksum === undefined) pending.push({ pkg: pkg.name, m });
        else if (checksum === m.checksum) report.alreadyApplied.push(`${pkg.name}/${m.name}`);
        else throw new MigrationError(`tool migration ${pkg.name}/${m.name} was modified after it was applied (checksum differs); add a new migration instead`);
      }
    }
    for (const { pkg, m } of pending) {
      await applyOne(client, pkg, m);
      report.applied.push(`${pkg}/${m.name}`);
      log(`applied ${pkg}/${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return report;
}
