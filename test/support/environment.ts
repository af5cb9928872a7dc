import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { topicsFor, type KafkaSecurity } from '@arvis/config';
import { createKafka, ensureTopics } from '@arvis/kafka';
import { applyJournalShards } from '@arvis/journal';
import { applyMigrations } from '@arvis/persistence';
import { localKeyEnv, localKeys } from '../../scripts/local-keys';
import { localToolPackages, migrateToolPackages } from '../../scripts/local-tools';
import { DATA, ROOT } from './services';

/**
 * Where a suite's processes live: its own database and topic prefix, so fault specs that kill
 * processes or restart the broker cannot disturb one another.
 */
export interface TestEnvironment {
  name: string;
  brokers: string[];
  databaseUrl: string;
  topicPrefix: string;
  /** Environment for the apps this environment starts. */
  appEnv: Record<string, string>;
  issuer: { issuer: string; privateKeyPem: string };
  /** The shared authorizer's API (`http://127.0.0.1:<port>`), set by the global setup. */
  apiUrl?: string;
}

const STATE_FILE = join(DATA, 'e2e-state.json');
const BASE_URL = 'postgresql://postgres@127.0.0.1:5432';

export function brokers(): string[] {
  return [`127.0.0.1:${process.env.KAFKA_PORT ?? '9092'}`];
}

/** The consumer group an app of this environment joins. */
export const groupOf = (env: TestEnvironment, app: 'authorizer' | 'dispatcher') => `${env.topicPrefix}${app}`;

/** Another broker than the suite's, and a principal that may create topics on it (the admin). */
export interface BrokerAccess {
  brokers: string[];
  security: KafkaSecurity;
}

/** A fresh database (dropped and recreated), migrated, and a fresh topic prefix with its topics. */
export async function createEnvironment(
  name: string,
  opts: { migrationsDir?: string; toolPackages?: readonly string[]; kafka?: BrokerAccess; journalShards?: number } = {},
): Promise<TestEnvironment> {
  // ARVIS_TEST_NAMESPACE lets two checkouts run their suites side by side on one PostgreSQL.
  const db = `arvis_test_${(process.env.ARVIS_TEST_NAMESPACE ?? '') + name}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const admin = new Pool({ connectionString: `${BASE_URL}/postgres`, max: 1 });
  await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  await admin.end();
  const databaseUrl = `${BASE_URL}/${db}`;
  await applyMigrations(databaseUrl, opts.migrationsDir ?? join(ROOT, 'prisma', 'migrations'));
  // As `npm run migrate` does with JOURNAL_SHARDS (ADR 0062); one chain unless asked.
  if (opts.journalShards !== undefined) {
    const pool = new Pool({ connectionString: databaseUrl, max: 1 });
    try {
      const applied = await applyJournalShards(pool, opts.journalShards);
      if (!applied.ok) throw new Error(`journal has ${applied.shards} chains, more than ${opts.journalShards}`);
    } finally {
      await pool.end();
    }
  }
  // The demo tools, loaded as a user's package is: named by ARVIS_TOOL_PACKAGES, migrated after.
  const toolPackages = [localToolPackages(ROOT), ...(opts.toolPackages ?? [])].join(',');
  await migrateToolPackages(databaseUrl, toolPackages);
  const topicPrefix = `t${Date.now().toString(36)}-${name}.`;
  const access = opts.kafka ?? { brokers: brokers(), security: {} };
  const kafka = createKafka({ ...access, clientId: 'arvis-test-setup' });
  await ensureTopics(kafka, topicsFor(topicPrefix), { partitions: 6, journalRetentionMs: -1 });
  const keys = localKeys(DATA);
  const keyEnv = localKeyEnv(keys);
  return {
    name,
    brokers: access.brokers,
    databaseUrl,
    topicPrefix,
    issuer: { issuer: keys.issuer.issuer, privateKeyPem: keys.issuer.privateKeyPem },
    appEnv: {
      ARVIS_PROFILE: 'production',
      LOG_LEVEL: 'info',
      // Specs call the API directly: no proxy in front (production requires saying so).
      TRUST_PROXY: 'false',
      DATABASE_URL: databaseUrl,
      // The apps get no credentials here: a spec on a secured broker gives each app its own.
      KAFKA_BROKERS: access.brokers.join(','),
      ARVIS_TOPIC_PREFIX: topicPrefix,
      // Short sessions so a killed process is replaced quickly.
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_HEARTBEAT_INTERVAL_MS: '500',
      RELAY_POLL_MS: '250',
      INTENT_SIGNING_KEY_ID: keyEnv.INTENT_SIGNING_KEY_ID,
      INTENT_SIGNING_KEY: keyEnv.INTENT_SIGNING_KEY,
      INTENT_VERIFICATION_KEYS: keyEnv.INTENT_VERIFICATION_KEYS,
      TRUSTED_ISSUERS: keyEnv.TRUSTED_ISSUERS,
      // The console specs sign in with pasted tokens; the OIDC spec turns it off (ADR 0071).
      CONSOLE_TOKEN_SIGN_IN: 'true',
      ARVIS_TOOL_PACKAGES: toolPackages,
    },
  };
}

export function saveSharedEnvironment(env: TestEnvironment): void {
  writeFileSync(STATE_FILE, JSON.stringify(env));
}

/** The environment the global setup started for the whole suite (both apps already running). */
export function sharedEnvironment(): TestEnvironment {
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as TestEnvironment;
}
