import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { ConfigError, kafkaSecurity, kafkaSecurityEnvShape, loadConfig, type KafkaSecurity } from '@arvis/config';
import type { Topics } from '@arvis/contracts';
import { createKafka } from '@arvis/kafka';
import { z } from 'zod';
import { loadAuthorizerConfig, type AuthorizerConfig } from '../../../authorizer/src/config/authorizer.config';
import { loadDispatcherConfig, type DispatcherConfig } from '../../../dispatcher/src/config/dispatcher.config';
import { loadRelayConfig, type RelayConfig } from '../../../relay/src/relay.config';
import { loadCliConfig, type CliConfig } from '../cli.config';
import { checkpointKeyCheck, fail, intentKeyCheck, issuerCheck, ok, skip, type Check, type Signer } from './checks';
import { DOCTOR_ROLES, type DoctorRole } from './doctor-roles';
import { parseEnvFile } from './env-file';
import { compareRights, heldRights } from './role-rights';


export interface DoctorInputs {
  /** Environment file per role; the services' are read by their own loaders, nothing is started. */
  envFiles: Partial<Record<DoctorRole, string>>;
  migrationsDir: string;
}

interface Loaded {
  authorizer?: AuthorizerConfig;
  dispatcher?: DispatcherConfig;
  relay?: RelayConfig;
  cli?: CliConfig;
  kafkaAdmin?: { brokers: string[]; security: KafkaSecurity };
}

type Service = AuthorizerConfig | DispatcherConfig | RelayConfig;

function readEnv(path: string): Record<string, string> {
  const { env, problems } = parseEnvFile(readFileSync(path, 'utf8'));
  if (problems.length) throw new ConfigError(problems.map((p) => `${path}: ${p}`));
  return env;
}

const KafkaAdminEnv = z.object({ KAFKA_BROKERS: z.string().min(1), ...kafkaSecurityEnvShape });

function loadRole(role: DoctorRole, env: Record<string, string>): Loaded {
  switch (role) {
    case 'authorizer':
      return { authorizer: loadAuthorizerConfig(env) };
    case 'dispatcher':
      return { dispatcher: loadDispatcherConfig(env) };
    case 'relay':
      return { relay: loadRelayConfig(env) };
    case 'cli':
      return { cli: loadCliConfig(env, { database: false, checkpointKeys: env.JOURNAL_CHECKPOINT_VERIFICATION_KEYS !== undefined }) };
    case 'kafka-admin': {
      const e = loadConfig(KafkaAdminEnv, env);
      const { security, issues } = kafkaSecurity(e);
      if (issues.length) throw new ConfigError(issues);
      return { kafkaAdmin: { brokers: e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean), security } };
    }
  }
}

/** Each configuration through its component's own loader: what would stop it at start-up stops here. */
function loadConfigurations(inputs: DoctorInputs): { loaded: Loaded; checks: Check[] } {
  const loaded: Loaded = {};
  const checks: Check[] = [];
  for (const role of DOCTOR_ROLES) {
    const path = inputs.envFiles[role];
    if (path === undefined) continue;
    const name = `configuration (${role})`;
    try {
      Object.assign(loaded, loadRole(role, readEnv(path)));
      checks.push(ok(name, path));
    } catch (e) {
      checks.push(fail(name, e instanceof ConfigError ? e.issues.join('; ') : (e as Error).message));
    }
  }
  return { loaded, checks };
}

const servicesOf = (l: Loaded): Service[] => [l.authorizer, l.dispatcher, l.relay].filter((s): s is Service => s !== undefined);

async function databaseCheck(service: Service): Promise<{ check: Check; rights?: Check; reachable: boolean }> {
  const name = `database (${service.service})`;
  const client = new Client({ connectionString: service.database.url, connectionTimeoutMillis: 5000, application_name: 'arvis-doctor' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ user: string; db: string; now: Date }>('SELECT current_user AS user, current_database() AS db, now() AS now');
    const skewS = Math.abs(rows[0].now.getTime() - Date.now()) / 1000;
    const detail = `reachable as ${rows[0].user} on ${rows[0].db}; clock ${skewS.toFixed(1)} s from this machine's`;
    // The role's rights on this very login (ADR 0034): what the service's statements will meet.
    const rights = compareRights(service.service, await heldRights(client));
    return { check: skewS > 5 ? fail(name, `${detail}: more than 5 s`) : ok(name, detail), rights, reachable: true };
  } catch (e) {
    return { check: fail(name, `not reachable: ${(e as Error).message}`), reachable: false };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The project's migrations, by folder name, against Prisma's history table (as `npm run migrate` records them). */
async function migrationsCheck(urls: string[], dir: string): Promise<Check> {
  const name = 'migrations';
  if (!existsSync(dir)) return skip(name, `no migrations folder at ${dir} (--migrations DIR)`);
  // Least-privilege roles may not read the history (no grant on _prisma_migrations): try each login.
  for (const url of urls) {
    const check = await migrationsCheckAs(url, dir);
    if (check) return check;
  }
  return skip(name, 'no service\'s login may read the migration history (_prisma_migrations): each has only its role\'s rights; check as the migrating user');
}

/** undefined: this login may not read the history (42501). */
async function migrationsCheckAs(url: string, dir: string): Promise<Check | undefined> {
  const name = 'migrations';
  const expected = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(`${dir}/${d.name}/migration.sql`)).map((d) => d.name).sort();
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ name: string }>('SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
    const applied = new Set(rows.map((r) => r.name));
    const missing = expected.filter((m) => !applied.has(m));
    const unknown = [...applied].filter((m) => !expected.includes(m));
    if (missing.length) return fail(name, `${missing.length} not applied: ${missing.join(', ')} (npm run migrate)`);
    return ok(name, `${expected.length} applied${unknown.length ? `; ${unknown.length} unknown to this CLI (a newer one applied them): ${unknown.join(', ')}` : ''}`);
  } catch (e) {
    if ((e as { code?: string }).code === '42501') return undefined;
    return fail(name, `cannot read the migration history: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Every topic the services use: present, with its partitions and replicas. */
async function topicChecks(access: { brokers: string[]; security: KafkaSecurity }, topics: Topics): Promise<Check[]> {
  const admin = createKafka({ ...access, clientId: 'arvis-doctor', connectRetries: 2 }).admin();
  try {
    await admin.connect();
    const present = new Set(await admin.listTopics());
    const names: string[] = Object.values(topics);
    const found = names.filter((t) => present.has(t));
    const meta = found.length ? (await admin.fetchTopicMetadata({ topics: found })).topics : [];
    const minIsr = await minInsyncReplicas(admin, found);
    return names.map((t) => {
      const m = meta.find((x) => x.name === t);
      if (!m) return fail(`topic ${t}`, 'missing (npm run topics)');
      const replicas = Math.min(...m.partitions.map((p) => p.replicas.length));
      const detail = `${m.partitions.length} partitions, ${replicas} replica(s), min ISR ${minIsr.get(t) ?? '?'}`;
      // With acks=all (every producer here) a partition with fewer replicas than min ISR refuses every send.
      return (minIsr.get(t) ?? 0) > replicas ? fail(`topic ${t}`, `${detail}: every send would be refused`) : ok(`topic ${t}`, detail);
    });
  } catch (e) {
    return [fail('topics', `broker ${access.brokers.join(',')} not reachable: ${(e as Error).message}`)];
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function minInsyncReplicas(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  if (topics.length === 0) return new Map();
  const { resources } = await admin.describeConfigs({
    resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] })),
    includeSynonyms: false,
  });
  return new Map(resources.map((r) => [r.resourceName, Number(r.configEntries.find((c) => c.configName === 'min.insync.replicas')?.configValue ?? 1)]));
}

async function infrastructureChecks(loaded: Loaded, migrationsDir: string): Promise<Check[]> {
  const services = servicesOf(loaded);
  const checks: Check[] = [];
  const reachableUrls: string[] = [];
  for (const s of services) {
    const { check, rights, reachable } = await databaseCheck(s);
    checks.push(check, ...(rights ? [rights] : []));
    if (reachable) reachableUrls.push(s.database.url);
  }
  if (reachableUrls.length) checks.push(await migrationsCheck(reachableUrls, migrationsDir));
  const prefixes = new Set(services.map((s) => s.topics.decisions));
  if (prefixes.size > 1) checks.push(fail('topic prefix', `the services use different topics: ${[...prefixes].join(', ')}`));
  const first = services[0];
  if (first) checks.push(...(await topicChecks(loaded.kafkaAdmin ?? first.kafka, first.topics)));
  return checks;
}

function keyChecks(loaded: Loaded): Check[] {
  const a = loaded.authorizer;
  const signer: Signer | undefined = a ? { service: 'authorizer', keyId: a.signing.keyId, privateKey: a.signing.privateKey } : undefined;
  const dispatchers = loaded.dispatcher ? [{ service: 'dispatcher', keys: loaded.dispatcher.verificationKeys }] : [];
  const checkpointSigners = servicesOf(loaded).flatMap((s) => (s.checkpoint ? [{ service: s.service, keyId: s.checkpoint.keyId, privateKey: s.checkpoint.privateKey }] : []));
  const verifiers = loaded.cli && loaded.cli.checkpointKeys.size > 0
    ? Object.fromEntries([...loaded.cli.checkpointKeys].map(([id, k]) => [id, k.export({ type: 'spki', format: 'pem' }).toString()]))
    : undefined;
  return [intentKeyCheck(signer, dispatchers), checkpointKeyCheck(checkpointSigners, verifiers)];
}

/** Every check, in the order a deployment is brought up: configuration, database, topics, keys, issuers. */
export async function runDoctor(inputs: DoctorInputs): Promise<Check[]> {
  const { loaded, checks } = loadConfigurations(inputs);
  checks.push(...(await infrastructureChecks(loaded, inputs.migrationsDir)));
  checks.push(...keyChecks(loaded));
  for (const iss of loaded.authorizer?.identity.issuers ?? []) checks.push(await issuerCheck(iss));
  return checks;
}

export function renderDoctor(checks: Check[]): string[] {
  const label = { ok: 'ok  ', fail: 'FAIL', skip: 'skip' } as const;
  const failed = checks.filter((c) => c.status === 'fail').map((c) => c.name);
  return [
    ...checks.map((c) => `${label[c.status]}  ${c.name}: ${c.detail}`),
    failed.length ? `doctor: ${failed.length} failed: ${failed.join(', ')}` : `doctor: ${checks.filter((c) => c.status === 'ok').length} checks passed`,
  ];
}
