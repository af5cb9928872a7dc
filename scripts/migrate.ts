// Applies prisma/migrations to DATABASE_URL (creating the database if missing; `--fresh` drops it
// first, for the benchmark's own database). Offline; see
// libs/persistence/src/migrations/apply-migrations.ts for why this is not `prisma migrate deploy`.
import { join } from 'node:path';
import { z } from 'zod';
import { commonEnvShape, loadConfig } from '@arvis/config';
import { applyMigrations, dropDatabase } from '@arvis/persistence';

async function main(): Promise<void> {
  const env = loadConfig(z.object({ DATABASE_URL: commonEnvShape.DATABASE_URL }));
  if (process.argv.includes('--fresh')) {
    await dropDatabase(env.DATABASE_URL);
    console.log('[migrate] dropped the database to start from empty');
  }
  const dir = join(__dirname, '..', '..', 'prisma', 'migrations');
  const report = await applyMigrations(env.DATABASE_URL, dir, (l) => console.log(`[migrate] ${l}`));
  console.log(
    `[migrate] ${report.database}: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`,
  );
}

main().catch((e: Error) => {
  console.error(`[migrate] ${e.message}`);
  process.exit(1);
});
