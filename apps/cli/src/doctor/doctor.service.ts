import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { ConfigError, kafkaSecurity, loadConfig, topicsFor, type KafkaSecurity } from '@arvis/config';
import { intentsTopicOf, type Topics } from '@arvis/contracts';
import { aclTable, AclsEnv, compareAcls, createKafka, describeAllAcls, tablePrincipals, type AclRole, type PrincipalAclVerdict } from '@arvis/kafka';
import { loadAuthorizerConfig, type AuthorizerConfig } from '../../../authorizer/src/config/authorizer.config';
import { loadDispatcherConfig, type DispatcherConfig } from '../../../dispatcher/src/config/dispatcher.config';
import { loadRelayConfig, type RelayConfig } from '../../../relay/src/relay.config';
import { loadMcpConfig, type McpConfig } from '../../../mcp/src/config/mcp.config';
import { loadCliConfig, type CliConfig } from '../cli.config';
import { checkpointKeyCheck, clockSkewCheck, fail, intentKeyCheck, issuerCheck, mcpAudienceCheck, ok, resultsApiCheck, skip, type Check, type Signer } from './checks';
import { DOCTOR_ROLES, type DoctorRole } from './doctor-roles';
import { parseEnvFile } from './env-file';
import { compareRights, heldRights } from './role-rights';


export interface DoctorInputs {
  /** Environment file per role; the services' are read by their own loaders, nothing is started. */
  envFiles: Partial<Record<DoctorRole, string>>;
  migrationsDir: string;
  /** How far the database's clock may be from this machine's (default DEFAULT_MAX_CLOCK_SKEW_MS). */
  maxClockSkewMs?: number;
}

/** The services judge time by the database's clock where it matters (ADR 0030); a host this far off is misconfigured. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5000;

/** The operator principal's connection and the ACL table's parameters (AclsEnv: what `npm run kafka:acls` reads). */
interface KafkaAdmin {
  brokers: string[];
  security: KafkaSecurity;
  principals: Record<AclRole, string[]>;
  topics: Topics;
  groups: { authorizer: string; dispatcher: string };
  /** The tool pools besides the shared one (TOOL_POOLS, ADR 0080). */
  pools: string[];
}

interface Loaded {
  authorizer?: AuthorizerConfig;
  dispatcher?: DispatcherConfig;
  relay?: RelayConfig;
  mcp?: McpConfig;
  cli?: CliConfig;
  kafkaAdmin?: KafkaAdmin;
}

type Service = AuthorizerConfig | DispatcherConfig | RelayConfig;

function readEnv(path: string): Record<string, string> {
  const { env, problems } = parseEnvFile(readFileSync(path, 'utf8'));
  if (problems.length) throw new ConfigError(problems.map((p) => `${path}: ${p}`));
  return env;
}

function loadRole(role: DoctorRole, env: Record<string, string>): Loaded {
  switch (role) {
    case 'authorizer':
      return { authorizer: loadAuthorizerConfig(env) };
    case 'dispatcher':
      return { dispatcher: loadDispatcherConfig(env) };
    case 'relay':
      return { relay: loadRelayConfig(env) };
    case 'mcp':
      return { mcp: loadMcpConfig(env) };
    case 'cli':
      return { cli: loadCliConfig(env, { database: false, checkpointKeys: env.JOURNAL_CHECKPOINT_VERIFICATION_KEYS !== undefined }) };
    case 'kafka-admin': {
      const e = loadConfig(AclsEnv, env);
      const { security, issues } = kafkaSecurity(e, e.ARVIS_PROFILE);
      if (issues.length) throw new ConfigError(issues);
      return {
        kafkaAdmin: {
          brokers: e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
          security,
          principals: tablePrincipals(e.KAFKA_ACL_PRINCIPALS, e.TOOL_POOLS),
          topics: topicsFor(e.ARVIS_TOPIC_PREFIX),
          groups: { authorizer: e.AUTHORIZER_GROUP_ID, dispatcher: e.DISPATCHER_GROUP_ID },
          pools: e.TOOL_POOLS,
        },
      };
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

async function databaseCheck(service: Service, maxClockSkewMs: number): Promise<{ check: Check; clock?: Check; rights?: Check; reachable: boolean }> {
  const name = `database (${service.service})`;
  const client = new Client({ connectionString: service.database.url, connectionTimeoutMillis: 5000, application_name: 'arvis-doctor' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ user: string; db: string }>('SELECT current_user AS user, current_database() AS db');
    // The database's clock at the statement, against this machine's half way through the round trip.
    const sentAt = Date.now();
    const { rows: [t] } = await client.query<{ ms: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms');
    const answeredAt = Date.now();
    const clock = clockSkewCheck(`clock (${service.service})`, { databaseMs: Number(t.ms), sentAtMs: sentAt, answeredAtMs: answeredAt }, maxClockSkewMs);
    // The role's rights on this very login (ADR 0034): what the service's statements will meet.
    const rights = compareRights(service.service, await heldRights(client));
    return { check: ok(name, `reachable as ${rows[0].user} on ${rows[0].db}`), clock, rights, reachable: true };
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

/** Every topic the services use (each tool pool's intents topic too, ADR 0080): present, with its partitions and replicas. */
async function topicChecks(access: { brokers: string[]; security: KafkaSecurity }, topics: Topics, pools: readonly string[]): Promise<Check[]> {
  const admin = createKafka({ ...access, clientId: 'arvis-doctor', connectRetries: 2 }).admin();
  try {
    await admin.connect();
    const present = new Set(await admin.listTopics());
    const names: string[] = [...new Set([...Object.values(topics), ...pools.map((p) => intentsTopicOf(topics, p))])];
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

async function infrastructureChecks(loaded: Loaded, migrationsDir: string, maxClockSkewMs: number): Promise<Check[]> {
  const services = servicesOf(loaded);
  const checks: Check[] = [];
  const reachableUrls: string[] = [];
  for (const s of services) {
    const { check, clock, rights, reachable } = await databaseCheck(s, maxClockSkewMs);
    checks.push(check, ...(clock ? [clock] : []), ...(rights ? [rights] : []));
    if (reachable) reachableUrls.push(s.database.url);
  }
  if (reachableUrls.length) checks.push(await migrationsCheck(reachableUrls, migrationsDir));
  const prefixes = new Set(services.map((s) => s.topics.decisions));
  if (prefixes.size > 1) checks.push(fail('topic prefix', `the services use different topics: ${[...prefixes].join(', ')}`));
  const first = services[0];
  const topics = first?.topics ?? loaded.kafkaAdmin?.topics;
  if (topics) checks.push(...(await topicChecks(loaded.kafkaAdmin ?? first!.kafka, topics, loaded.kafkaAdmin?.pools ?? [])));
  checks.push(...(await aclChecks(loaded)));
  return checks;
}

/**
 * The broker's ACLs against the table (libs/kafka acl-table, the one `npm run kafka:acls` applies),
 * listed as the operator principal: the services' own principals are never given more for this.
 * Checked: every principal the table names (KAFKA_ACL_PRINCIPALS of --kafka-admin-env, the others
 * User:<role>) and each service's own SASL login, for its service's role.
 */
async function aclChecks(loaded: Loaded): Promise<Check[]> {
  const admin = loaded.kafkaAdmin;
  if (!admin) return [skip('broker ACLs', 'needs --kafka-admin-env: an operator principal that may describe ACLs (the file npm run kafka:acls reads)')];
  const services = servicesOf(loaded);
  const principals = { ...admin.principals };
  for (const s of services) {
    const login = s.kafka.security.sasl?.username;
    if (login !== undefined && !principals[s.service].includes(`User:${login}`)) principals[s.service] = [...principals[s.service], `User:${login}`];
  }
  // What the services read wins over the admin file's copy: those are the names they will use.
  const topics = services[0]?.topics ?? admin.topics;
  const groups = {
    authorizer: loaded.authorizer?.kafka.groupId ?? admin.groups.authorizer,
    dispatcher: loaded.dispatcher?.kafka.groupId ?? admin.groups.dispatcher,
  };
  const rules = aclTable({ topics, groups, pools: admin.pools });
  const client = createKafka({ brokers: admin.brokers, security: admin.security, clientId: 'arvis-doctor', connectRetries: 2 }).admin();
  try {
    await client.connect();
    const held = await describeAllAcls(client);
    const checked = [...new Set(Object.values(principals).flat())];
    return compareAcls(rules, principals, held, checked).map(aclCheck);
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'SECURITY_DISABLED') return [fail('broker ACLs', 'the broker has no authorizer: every principal may do everything (docs/kafka-security.md)')];
    return [fail('broker ACLs', `cannot describe the ACLs as the --kafka-admin-env principal: ${(e as Error).message}`)];
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

function aclCheck(v: PrincipalAclVerdict): Check {
  const name = `broker ACLs (${v.principal})`;
  const roles = v.roles.join(' and ');
  if (v.missing.length === 0 && v.extra.length === 0) return ok(name, `${v.principal} holds exactly the ${roles} rules (${v.needed} ACL${v.needed === 1 ? '' : 's'})`);
  const problems = [
    ...(v.missing.length ? [`${v.principal} lacks ${v.missing.join('; ')}: the broker would refuse those requests (npm run kafka:acls)`] : []),
    ...(v.extra.length ? [`${v.principal} may also ${v.extra.join('; ')}: more than the ${roles} rules grant`] : []),
  ];
  return fail(name, problems.join('; '));
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

/** The MCP front door (ADR 0074): its URI is the authorizer's decisions audience, and the results API it reads answers. */
async function mcpChecks(loaded: Loaded): Promise<Check[]> {
  const mcp = loaded.mcp;
  if (!mcp) return [];
  const audiences = loaded.authorizer?.identity.issuers.map((i) => ({ issuer: i.issuer, decisions: i.audience?.decisions }));
  return [mcpAudienceCheck(mcp, audiences), await resultsApiCheck(mcp.authorizerUrl)];
}

/** Every check, in the order a deployment is brought up: configuration, database, topics, keys, issuers. */
export async function runDoctor(inputs: DoctorInputs): Promise<Check[]> {
  const { loaded, checks } = loadConfigurations(inputs);
  checks.push(...(await infrastructureChecks(loaded, inputs.migrationsDir, inputs.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS)));
  checks.push(...keyChecks(loaded));
  for (const iss of loaded.authorizer?.identity.issuers ?? []) checks.push(await issuerCheck(iss));
  checks.push(...(await mcpChecks(loaded)));
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
