import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { applyToolMigrations, dropDatabase, ensureDatabase } from '@arvis/persistence';

// The migrate step applies each tool package's migrations in name order, once, recording each
// (package, name, checksum); running it again changes nothing, and an applied migration whose
// file has changed since is refused before anything else runs.
const url = `postgresql://postgres@127.0.0.1:5432/arvis_test_${process.env.ARVIS_TEST_NAMESPACE ?? ''}toolmigrations`.toLowerCase();

function packageWith(migrations: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'arvis-tool-migrations-'));
  for (const [name, sql] of Object.entries(migrations)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

describe('tool package migrations', () => {
  let db: Pool;
  beforeAll(async () => {
    await dropDatabase(url);
    await ensureDatabase(url);
    db = new Pool({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    await db?.end();
    await dropDatabase(url);
  });

  it('apply once in order per package, record each, and refuse a changed file', async () => {
    // 002 depends on 001: applied out of order, it would fail.
    const a = packageWith({ '002_add_column': 'ALTER TABLE a_rows ADD COLUMN note TEXT;', '001_create': 'CREATE TABLE a_rows (id INT);' });
    const b = packageWith({ '001_create': 'CREATE TABLE b_rows (id INT);' });
    const packages = [{ name: '@x/a', migrationsDir: a }, { name: '@x/b', migrationsDir: b }, { name: '@x/none' }];
    expect(await applyToolMigrations(url, packages)).toEqual({ applied: ['@x/a/001_create', '@x/a/002_add_column', '@x/b/001_create'], alreadyApplied: [] });
    expect(await applyToolMigrations(url, packages)).toEqual({ applied: [], alreadyApplied: ['@x/a/001_create', '@x/a/002_add_column', '@x/b/001_create'] });
    const { rows } = await db.query<{ package: string; migration_name: string; checksum: string }>(
      'SELECT package, migration_name, checksum FROM "_arvis_tool_migrations" ORDER BY package, migration_name',
    );
    expect(rows.map((r) => [r.package, r.migration_name, r.checksum.length])).toEqual([
      ['@x/a', '001_create', 64],
      ['@x/a', '002_add_column', 64],
      ['@x/b', '001_create', 64],
    ]);
    // The tables each package's migrations created are its own (its database role's, ADR 0034).
    const tables = await db.query<{ package: string; table_name: string }>('SELECT package, table_name FROM "_arvis_tool_tables" ORDER BY table_name');
    expect(tables.rows.map((r) => [r.package, r.table_name])).toEqual([['@x/a', 'a_rows'], ['@x/b', 'b_rows']]);

    // A new migration of the first package, and a change to an applied one of the second: the
    // change is found before the new one runs.
    mkdirSync(join(a, '003_more'));
    writeFileSync(join(a, '003_more', 'migration.sql'), 'CREATE TABLE a_more (id INT);');
    appendFileSync(join(b, '001_create', 'migration.sql'), '\n-- edited after it ran');
    await expect(applyToolMigrations(url, packages)).rejects.toThrow('tool migration @x/b/001_create was modified after it was applied (checksum differs)');
    const [{ n }] = (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM information_schema.tables WHERE table_name = 'a_more'`)).rows;
    expect(n).toBe('0');
  });
});
