import { join } from 'node:path';
import { applyDatabaseRoles, applyToolMigrations, DEFAULT_ROLE_PREFIX, type ToolMigrationReport } from '@arvis/persistence';
import { loadToolPackages } from '@arvis/tool-catalog';

/**
 * ARVIS_TOOL_PACKAGES for the local environments (demo, tests, chaos, bench): the built demo
 * package, named explicitly as a user names theirs; nothing loads it by default.
 */
export const localToolPackages = (root: string): string => join(root, 'dist', 'tools', 'demo');

/**
 * Applies the migrations of the named packages, then creates the database roles and their grants
 * (default prefix), as `npm run migrate` does after the project's.
 */
export async function migrateToolPackages(databaseUrl: string, toolPackages: string): Promise<ToolMigrationReport> {
  const packages = loadToolPackages(toolPackages.split(','));
  const report = await applyToolMigrations(databaseUrl, packages);
  await applyDatabaseRoles(databaseUrl, { prefix: DEFAULT_ROLE_PREFIX, packages: packages.map((p) => p.name) });
  return report;
}
