import { join } from 'node:path';
import { applyToolMigrations, type ToolMigrationReport } from '@arvis/persistence';
import { loadToolPackages } from '@arvis/tool-catalog';

/**
 * ARVIS_TOOL_PACKAGES for the local environments (demo, tests, chaos, bench): the built demo
 * package, named explicitly as a user names theirs; nothing loads it by default.
 */
export const localToolPackages = (root: string): string => join(root, 'dist', 'tools', 'demo');

/** Applies the migrations of the named packages, as `npm run migrate` does after the project's. */
export async function migrateToolPackages(databaseUrl: string, toolPackages: string): Promise<ToolMigrationReport> {
  return applyToolMigrations(databaseUrl, loadToolPackages(toolPackages.split(',')));
}
