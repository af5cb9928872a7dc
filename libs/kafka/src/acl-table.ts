// The ACL table of a secured broker (docs/kafka-security.md, ADR 0033): which principal may
// produce to and consume from which topic, as data, so the document, the apply script
// (`npm run kafka:acls`), `arvis doctor`'s ACL check and the spec on the secured broker are the
// same table.
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin } from 'kafkajs';
import { z } from 'zod';
import { commonEnvShape, envJson, envString, kafkaSecurityEnvShape, resultTopicTenantsEnv, toolPoolsEnv } from '@arvis/config';
import { DEFAULT_TOOL_POOL, dispatcherGroupOf, intentsTopicOf, TOOL_POOL_NAME, type Topics } from '@arvis/contracts';

/** The throwaway consumer groups of the admin API's dead-letter reader (the table grants them to the authorizer). */
export const ADMIN_READER_GROUP_PREFIX = 'arvis-admin-reader-';
/** The throwaway consumer groups that read the journal topic's head (ADR 0055). */
export const JOURNAL_HEAD_READER_GROUP_PREFIX = 'arvis-journal-head-';

/** The roles of the table; each is granted to one or more principals (`User:<name>`). */
export const ACL_ROLES = ['authorizer', 'dispatcher', 'relay', 'producer', 'analyst'] as const;
/**
 * A role of the table: one of ACL_ROLES, or the dispatchers of a tool pool besides the shared one,
 * `dispatcher-<pool>` (ADR 0080; the shared pool's dispatchers are `dispatcher`).
 */
export type AclRole = (typeof ACL_ROLES)[number] | `dispatcher-${string}`;

/** The role of a pool's dispatchers: `dispatcher` for the shared pool, `dispatcher-<pool>` for another. */
export function dispatcherRoleOf(pool: string): AclRole {
  return pool === DEFAULT_TOOL_POOL ? 'dispatcher' : `dispatcher-${pool}`;
}

/** The table's roles with these pools: ACL_ROLES, then each other pool's dispatchers. */
export function aclRolesOf(pools: readonly string[] = []): AclRole[] {
  return [...ACL_ROLES, ...otherPools(pools).map(dispatcherRoleOf)];
}

const otherPools = (pools: readonly string[]) => [...new Set(pools)].filter((p) => p !== DEFAULT_TOOL_POOL).sort();
const POOL_ROLE = new RegExp(`^dispatcher-${TOOL_POOL_NAME.source.slice(1, -1)}$`);
const isAclRole = (r: string) => (ACL_ROLES as readonly string[]).includes(r) || POOL_ROLE.test(r);

export type AclOperation = 'Read' | 'Write' | 'Describe' | 'Delete' | 'DescribeConfigs';

export interface AclRule {
  role: AclRole;
  resource: 'topic' | 'group';
  /** A name, or a prefix when `prefixed`. */
  name: string;
  prefixed: boolean;
  operations: AclOperation[];
  why: string;
  /** Granted to these principals instead of the role's (a tenant's result readers, ADR 0073). */
  principals?: string[];
}

export interface AclPlan {
  topics: Topics;
  /** Consumer groups of the two services (KAFKA_GROUP_ID); a pool's dispatchers use dispatcherGroupOf(dispatcher, pool). */
  groups: { authorizer: string; dispatcher: string };
  /**
   * The tool pools besides the shared one (ADR 0080): each pool's dispatchers (`dispatcher-<pool>`)
   * read only that pool's intents topic and group, LITERAL; every outbox publisher writes every
   * pool's intents topic.
   */
  pools?: readonly string[];
  /**
   * Tenant → its result topic and the principals that read it (ADR 0073). Each topic's ACLs are
   * LITERAL, by its full name: a PREFIXED rule for `…results.acme` would also match `…results.acme2`.
   */
  results?: Record<string, { topic: string; readers: string[] }>;
}

/** Prefix of the throwaway consumer groups of the result watchers (Node and the Python example). */
export const RESULT_WATCHER_GROUP_PREFIX = 'arvis-result-watcher-';

const principal = z.string().regex(/^User:[^\s]+$/, 'a principal is User:<name>');

/**
 * `npm run kafka:acls` (scripts/apply-kafka-acls.ts) and `arvis doctor --kafka-admin-env`: the
 * operator principal's connection and the table's parameters, so the file that applies the ACLs
 * is the one doctor checks them with.
 */
export const AclsEnv = z.object({
  KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
  ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
  ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
  ...kafkaSecurityEnvShape,
  /** Role -> principals, e.g. {"producer": ["User:agent-a", "User:agent-b"]}; roles left out keep User:<role>. */
  KAFKA_ACL_PRINCIPALS: envJson(z.record(z.string().refine(isAclRole, 'a role is one of the table\'s: authorizer, dispatcher, relay, producer, analyst, or dispatcher-<pool>'), z.array(principal)), {}),
  /** The tool pools besides the shared one (ADR 0080): each pool's dispatchers get their own role. */
  TOOL_POOLS: toolPoolsEnv(),
  /** The tenants with result topics (ADR 0073): the services' list; each topic gets LITERAL ACLs. */
  RESULT_TOPIC_TENANTS: resultTopicTenantsEnv(),
  /** Tenant -> the principals that read its result topic, e.g. {"acme": ["User:agent-acme"]}; a tenant left out gets no reader. */
  KAFKA_RESULT_READERS: envJson(z.record(z.string().min(1), z.array(principal)), {}),
  /** The services' KAFKA_GROUP_ID. */
  AUTHORIZER_GROUP_ID: envString('arvis-authorizer'),
  DISPATCHER_GROUP_ID: envString('arvis-dispatcher'),
});

/**
 * Each role's principals (with these pools' roles): those named (KAFKA_ACL_PRINCIPALS), the others
 * `User:<role>`, so a pool's dispatchers are `User:dispatcher-<pool>` unless named.
 */
export function tablePrincipals(named: Partial<Record<AclRole, string[]>> = {}, pools: readonly string[] = []): Record<AclRole, string[]> {
  return Object.fromEntries(aclRolesOf(pools).map((r) => [r, named[r] ?? [`User:${r}`]])) as Record<AclRole, string[]>;
}

/** Roles KAFKA_ACL_PRINCIPALS names that the table with these pools does not have (a pool left out of TOOL_POOLS). */
export function unknownAclRoles(named: Partial<Record<AclRole, string[]>>, pools: readonly string[] = []): string[] {
  const roles: readonly string[] = aclRolesOf(pools);
  return Object.keys(named).filter((r) => !roles.includes(r));
}

/** Prefixes of the throwaway consumer groups the journal watcher and the CLI create per run. */
export const ANALYST_GROUP_PREFIXES = ['arvis-journal-watcher-', 'arvis-cli-'];

export function aclTable({ topics, groups, results = {}, pools = [] }: AclPlan): AclRule[] {
  const others = otherPools(pools);
  const topic = (role: AclRole, name: string, operations: AclOperation[], why: string): AclRule => ({ role, resource: 'topic', name, prefixed: false, operations, why });
  const group = (role: AclRole, name: string, operations: AclOperation[], why: string, prefixed = false): AclRule => ({ role, resource: 'group', name, prefixed, operations, why });
  // Every outbox row (intents, journal copies, dead letters of either service) is published by
  // whichever process holds the relay lock: the standalone relay or either service's own relay.
  const publishesOutbox = (role: AclRole) => [
    topic(role, topics.intents, ['Write'], 'relay: intents (authorizer) and redeliveries (dispatcher)'),
    ...others.map((p) => topic(role, intentsTopicOf(topics, p), ['Write'], `relay: intents and redeliveries of pool ${p}`)),
    topic(role, topics.journal, ['Write'], 'relay: journal copies and signed checkpoints'),
    topic(role, topics.decisionsDlq, ['Write'], 'relay: dead letters of unreadable or untrusted decisions'),
    topic(role, topics.intentsDlq, ['Write'], 'relay: dead letters of unreadable or untrusted intents'),
    ...Object.entries(results).map(([tenant, r]) => topic(role, r.topic, ['Write'], `relay: copies of ${tenant}'s final entries`)),
  ];
  // A tenant's readers read its one topic, by its literal name, and nothing else of the results.
  const readsResults = Object.entries(results).flatMap(([tenant, r]) =>
    r.readers.length === 0
      ? []
      : [
          { ...topic('producer', r.topic, ['Read'], `${tenant}'s own results (its readers only)`), principals: r.readers },
          { ...group('producer', RESULT_WATCHER_GROUP_PREFIX, ['Read'], 'result watchers: throwaway groups', true), principals: r.readers },
        ],
  );
  // Every process that works on the database reads the journal topic's head at start-up (ADR 0055).
  const readsJournalHead = (role: AclRole) => [
    topic(role, topics.journal, ['Read'], 'the rollback check reads the journal topic\'s head at start-up'),
    group(role, JOURNAL_HEAD_READER_GROUP_PREFIX, ['Read', 'Delete'], 'the rollback check: throwaway groups, deleted after a read', true),
  ];
  return [
    topic('authorizer', topics.decisions, ['Read', 'DescribeConfigs'], 'consumes decisions; retention reads its low watermarks and retention.ms'),
    topic('authorizer', topics.decisionsDlq, ['Read'], 'the admin API reads a dead letter to re-drive it'),
    topic('authorizer', topics.intentsDlq, ['Read'], 'the admin API reads a dead letter to re-drive it'),
    group('authorizer', ADMIN_READER_GROUP_PREFIX, ['Read', 'Delete'], 'the dead-letter reader: throwaway groups, deleted after a read', true),
    group('authorizer', groups.authorizer, ['Read'], 'its consumer group (offsets committed after the database commit)'),
    ...publishesOutbox('authorizer'),
    ...readsJournalHead('authorizer'),
    topic('dispatcher', topics.intents, ['Read'], 'consumes intents; reads their end offsets (redelivery lag)'),
    group('dispatcher', groups.dispatcher, ['Read'], 'its consumer group'),
    ...publishesOutbox('dispatcher'),
    ...readsJournalHead('dispatcher'),
    // Each other pool's dispatchers read their pool's intents and group only, by literal name (ADR 0080).
    ...others.flatMap((p) => [
      topic(dispatcherRoleOf(p), intentsTopicOf(topics, p), ['Read'], `pool ${p}: consumes its intents; reads their end offsets (redelivery lag)`),
      group(dispatcherRoleOf(p), dispatcherGroupOf(groups.dispatcher, p), ['Read'], `pool ${p}: its consumer group`),
      ...publishesOutbox(dispatcherRoleOf(p)),
      ...readsJournalHead(dispatcherRoleOf(p)),
    ]),
    ...publishesOutbox('relay'),
    ...readsJournalHead('relay'),
    topic('producer', topics.decisions, ['Write'], 'an agent sends decisions; nothing else'),
    topic('analyst', topics.journal, ['Read'], 'tail, verify --from-topic, the journal watcher'),
    topic('analyst', topics.decisionsDlq, ['Read'], 'the journal watcher reads dead letters'),
    topic('analyst', topics.intentsDlq, ['Read'], 'the journal watcher reads dead letters'),
    ...ANALYST_GROUP_PREFIXES.map((p) => group('analyst', p, ['Read', 'Delete'], 'throwaway groups, deleted after a read', true)),
    ...readsResults,
  ];
}

const OPERATION = { Read: AclOperationTypes.READ, Write: AclOperationTypes.WRITE, Describe: AclOperationTypes.DESCRIBE, Delete: AclOperationTypes.DELETE, DescribeConfigs: AclOperationTypes.DESCRIBE_CONFIGS };

/** kafkajs's CreateAcls entries: one per rule, operation and principal. */
export function aclEntries(rules: AclRule[], principals: Record<AclRole, string[]>) {
  return rules.flatMap((r) =>
    (r.principals ?? principals[r.role]).flatMap((principal) =>
      r.operations.map((op) => ({
        resourceType: r.resource === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
        resourceName: r.name,
        resourcePatternType: r.prefixed ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
        principal,
        host: '*',
        operation: OPERATION[op],
        permissionType: AclPermissionTypes.ALLOW,
      })),
    ),
  );
}

/**
 * Creates the ACLs (creating one that exists is a no-op) and waits until the broker lists them
 * all: the authorizer takes them from the metadata log, not at once.
 */
export async function applyAcls(admin: Admin, rules: AclRule[], principals: Record<AclRole, string[]>, timeoutMs = 30_000): Promise<number> {
  const acl = aclEntries(rules, principals);
  await admin.createAcls({ acl });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    const listed = new Set(resources.flatMap((r) => r.acls.map((a) => `${r.resourceType}|${r.resourceName}|${r.resourcePatternType}|${a.principal}|${a.operation}`)));
    if (acl.every((a) => listed.has(`${a.resourceType}|${a.resourceName}|${a.resourcePatternType}|${a.principal}|${a.operation}`))) return acl.length;
    if (Date.now() > deadline) throw new Error(`the broker does not list all ${acl.length} ACLs after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The table as docs/kafka-security.md shows it (a unit spec keeps the two equal). */
export function aclMarkdown(rules: AclRule[]): string {
  const rows = rules.map((r) => `| ${r.role} | ${r.resource} | \`${r.name}\`${r.prefixed ? ' (prefix)' : ''} | ${r.operations.join(', ')} | ${r.why} |`);
  return ['| Role | Resource | Name | Operations | Why |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** One ACL as the broker describes it (kafkajs's describeAcls), flattened. */
export interface HeldAcl {
  resource: string;
  name: string;
  prefixed: boolean;
  principal: string;
  operation: string;
  permission: 'allow' | 'deny';
}

const RESOURCE_NAME: Record<number, string> = {
  [AclResourceTypes.TOPIC]: 'topic',
  [AclResourceTypes.GROUP]: 'group',
  [AclResourceTypes.CLUSTER]: 'cluster',
  [AclResourceTypes.TRANSACTIONAL_ID]: 'transactional id',
  [AclResourceTypes.DELEGATION_TOKEN]: 'delegation token',
};
const OPERATION_NAME: Record<number, string> = Object.fromEntries(
  Object.entries(AclOperationTypes).map(([k, v]) => [v, k.toLowerCase().split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')]),
);

/** Every ACL the broker holds, as an operator principal may list them. */
export async function describeAllAcls(admin: Admin): Promise<HeldAcl[]> {
  const { resources } = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  return resources.flatMap((r) =>
    r.acls.map((a) => ({
      resource: RESOURCE_NAME[r.resourceType] ?? `resource type ${r.resourceType}`,
      name: r.resourceName,
      prefixed: r.resourcePatternType === ResourcePatternTypes.PREFIXED,
      principal: a.principal,
      operation: OPERATION_NAME[a.operation] ?? `operation ${a.operation}`,
      permission: a.permissionType === AclPermissionTypes.DENY ? 'deny' : 'allow',
    })),
  );
}

export interface PrincipalAclVerdict {
  principal: string;
  roles: AclRole[];
  /** What the table grants this principal that the broker does not let it do. */
  missing: string[];
  /** What the broker lets it do beyond the table (or `User:*` lets everyone do). */
  extra: string[];
  /** How many ACLs the table asks for it. */
  needed: number;
}

interface Need {
  resource: string;
  name: string;
  prefixed: boolean;
  operation: string;
  why: string;
}

const describeNeed = (n: { resource: string; name: string; prefixed: boolean; operation: string }) => `${n.operation} on ${n.resource} ${n.name}${n.prefixed ? '*' : ''}`;

/** Whether a held ACL's resource pattern and operation cover a need. */
function covers(held: HeldAcl, need: Need): boolean {
  if (held.resource !== need.resource) return false;
  if (held.operation !== 'All' && held.operation !== need.operation) return false;
  if (held.name === '*' && !held.prefixed) return true;
  if (held.prefixed) return need.name.startsWith(held.name);
  return !need.prefixed && held.name === need.name;
}

const sameAs = (held: HeldAcl, need: Need) => held.resource === need.resource && held.name === need.name && held.prefixed === need.prefixed && held.operation === need.operation;

/**
 * Each principal against the table: what it needs and the broker does not allow (or denies), and
 * what the broker allows it beyond its roles' rules. Allowed means an ALLOW ACL on the principal
 * or on `User:*` (any host); a DENY on either takes the right away, as Kafka's authorizer does.
 */
export function compareAcls(rules: AclRule[], principals: Record<AclRole, string[]>, held: HeldAcl[], checked: string[]): PrincipalAclVerdict[] {
  return checked.map((principal) => {
    const roles = (Object.keys(principals) as AclRole[]).filter((r) => principals[r]?.includes(principal));
    const needs = rules
      .filter((r) => roles.includes(r.role))
      .flatMap((r) => r.operations.map((operation) => ({ resource: r.resource, name: r.name, prefixed: r.prefixed, operation, why: r.why })));
    const unique = needs.filter((n, i) => needs.findIndex((m) => describeNeed(m) === describeNeed(n)) === i);
    const mine = held.filter((h) => h.principal === principal || h.principal === 'User:*');
    const allows = mine.filter((h) => h.permission === 'allow');
    const denies = mine.filter((h) => h.permission === 'deny');
    const missing = unique
      .filter((n) => !allows.some((h) => covers(h, n)) || denies.some((h) => covers(h, n)))
      .map((n) => `${describeNeed(n)} (${n.why})`);
    const extra = allows
      .filter((h) => !unique.some((n) => sameAs(h, n)))
      .map((h) => `${describeNeed(h)}${h.principal === 'User:*' ? ' (granted to User:*)' : ''}`);
    return { principal, roles, missing, extra: [...new Set(extra)], needed: unique.length };
  });
}
