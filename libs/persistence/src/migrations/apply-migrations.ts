import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { handleClientErrors } from '../pg-errors';

// A lost connection fails the statement in flight, which reports it; the listener only keeps the
// process alive.
const noWarn = () => undefined;

/**
 * Applies prisma/migrations offline, recording each in Prisma's own `_prisma_migrations` table
 * with Prisma's checksum (SHA-256 of migration.sql), so `prisma migrate deploy/status` agree with
 * what ran here. Prisma's schema engine (what `migrate deploy` needs) cannot be downloaded on
 * these machines; the files and the history table stay standard.
 */
export interface MigrationReport {
  database: string;
  created: boolean;
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

// Prisma's own DDL for the history table.
const HISTORY_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export const MIGRATION_LOCK_KEY = 7_276_873_001; // serialises concurrent migrators on one database

/** Drops the database if it exists (benchmarks start from an empty one); refuses odd names. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const database = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(database)) throw new MigrationError(`database name "${database}" must be letters, digits, _ or -`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = handleClientErrors(new Client({ connectionString: admin.toString() }), 'migrate', noWarn);
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function ensureDatabase(databaseUrl: string): Promise<{ database: string; created: boolean }> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(database)) {
    throw new MigrationError(`database name "${database}" must be letters, digits, _ or -`);
  }
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = handleClientErrors(new Client({ connectionString: admin.toString() }), 'migrate', noWarn);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return { database, created: false };
    try {
      await client.query(`CREATE DATABASE "${database}"`);
    } catch (e) {
      // Another process created it between our check and our CREATE.
      if ((e as { code?: string }).code !== '42P04') throw e;
      return { database, created: false };
    }
    return { database, created: true };
  } finally {
    await client.end();
  }
}

export function listMigrations(migrationsDir: string): { name: string; sql: string; checksum: string }[] {
  if (!existsSync(migrationsDir)) throw new MigrationError(`no migrations folder at ${migrationsDir}`);
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(migrationsDir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(join(migrationsDir, name, 'migration.sql'));
      return { name, sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
    });
}

/** Each migration and its history row commit together or not at all. */
async function applyOne(client: Client, m: { name: string; sql: string; checksum: string }): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(m.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
       VALUES (gen_random_uuid()::text, $1, now(), $2, 1)`,
      [m.checksum, m.name],
    );
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    const err = e as { message?: string; position?: string };
    throw new MigrationError(
      `migration ${m.name} failed and was rolled back (database unchanged): ${err.message}` + (err.position ? ` at character ${err.position}` : ''),
    );
  }
}

export async function applyMigrations(
  databaseUrl: string,
  migrationsDir: string,
  log: (line: string) => void = () => undefined,
): Promise<MigrationReport> {
  const { database, created } = await ensureDatabase(databaseUrl);
  if (created) log(`created database ${database}`);
  const migrations = listMigrations(migrationsDir);
  const client = handleClientErrors(new Client({ connectionString: databaseUrl }), 'migrate', noWarn);
  await client.connect();
  const applied: string[] = [];
  const alreadyApplied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(HISTORY_DDL);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const history = new Map(rows.filter((r) => !r.rolled_back_at).map((r) => [r.migration_name, r]));
    for (const m of migrations) {
      const done = history.get(m.name);
      if (done && !done.finished_at) {
        throw new MigrationError(
          `migration ${m.name} is recorded as started but not finished; resolve it (npx prisma migrate resolve) before applying more`,
        );
      }
      if (done) {
        if (done.checksum !== m.checksum) {
          throw new MigrationError(`migration ${m.name} was modified after it was applied (checksum differs)`);
        }
        alreadyApplied.push(m.name);
        continue;
      }
      await applyOne(client, m);
      applied.push(m.name);
      log(`applied ${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return { database, created, applied, alreadyApplied };
}
