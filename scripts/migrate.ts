// Applies prisma/migrations to DATABASE_URL (creating the database if missing; `--fresh` drops it
// first, for the benchmark's own database), then the migrations of the tool packages named by
// ARVIS_TOOL_PACKAGES, in that order, then creates the components' database roles (prefix
// ARVIS_DB_ROLE_PREFIX) and grants each its rights on this database (ADR 0034). Offline; see
// libs/persistence/src/migrations/apply-migrations.ts for why this is not `prisma migrate deploy`.
import { join } from 'node:path';
import { ConfigError, databaseUrlFor, loadConfig } from '@arvis/config';
import { Client } from 'pg';
import { applyJournalShards } from '@arvis/journal';
import { applyRelayShards } from '@arvis/outbox';
import { applyDatabaseRoles, applyMigrations, applyToolMigrations, dropDatabase } from '@arvis/persistence';
import { loadToolPackages } from '@arvis/tool-catalog';
import { MigrateEnv } from './script-env';

async function main(): Promise<void> {
  const env = loadConfig(MigrateEnv);
  const database = databaseUrlFor(env);
  if (database.issues.length > 0) throw new ConfigError(database.issues);
  const databaseUrl = database.url;
  // Before touching the database: a package that cannot be loaded stops the step here.
  const packages = loadToolPackages(env.ARVIS_TOOL_PACKAGES);
  if (process.argv.includes('--fresh')) {
    await dropDatabase(databaseUrl);
    console.log('[migrate] dropped the database to start from empty');
  }
  const dir = join(__dirname, '..', '..', 'prisma', 'migrations');
  const report = await applyMigrations(databaseUrl, dir, (l) => console.log(`[migrate] ${l}`));
  console.log(
    `[migrate] ${report.database}: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`,
  );
  await journalShards(databaseUrl, env.JOURNAL_SHARDS);
  if (env.RELAY_SHARDS !== undefined) await relayShards(databaseUrl, env.RELAY_SHARDS);
  const tools = await applyToolMigrations(databaseUrl, packages, (l) => console.log(`[migrate] ${l}`));
  const names = packages.map((p) => `${p.name}@${p.version}`).join(', ') || 'none (ARVIS_TOOL_PACKAGES is empty)';
  console.log(`[migrate] tool packages ${names}: ${tools.applied.length} applied, ${tools.alreadyApplied.length} already applied`);
  const roles = await applyDatabaseRoles(databaseUrl, { prefix: env.ARVIS_DB_ROLE_PREFIX, packages: packages.map((p) => p.name) }, (l) => console.log(`[migrate] ${l}`));
  console.log(`[migrate] database roles granted on ${report.database}: ${roles.roles.join(', ')}`);
}

/** The journal's heads, one per chain (ADR 0062): created up to the count, never removed. */
async function journalShards(databaseUrl: string, shards: number): Promise<void> {
  const applied = await withClient(databaseUrl, (client) => applyJournalShards(client, shards));
  if (!applied.ok) throw new Error(`JOURNAL_SHARDS=${applied.configured} but the journal has ${applied.shards} chains: the count never shrinks`);
  console.log(`[migrate] journal: ${applied.shards} chain(s), ${applied.created} created`);
}

/**
 * The outbox's shard count (ADR 0089): written while every shard's lock is held, so no batch is
 * in flight with the old count; each relay adopts the new one at its next batch.
 */
async function relayShards(databaseUrl: string, shards: number): Promise<void> {
  const applied = await withClient(databaseUrl, (client) => applyRelayShards(client, shards));
  console.log(`[migrate] outbox: ${applied.shards} relay shard(s)${applied.previous === applied.shards ? '' : `, was ${applied.previous}`}`);
}

/** One connection for one step, closed whatever the step did. */
async function withClient<T>(databaseUrl: string, step: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await step(client);
  } finally {
    await client.end();
  }
}

main().catch((e: Error) => {
  console.error(`[migrate] ${e.message}`);
  process.exit(e instanceof ConfigError ? 78 : 1);
});
