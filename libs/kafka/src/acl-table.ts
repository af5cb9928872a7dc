// The ACL table of a secured broker (docs/kafka-security.md, ADR 0033): which principal may
// produce to and consume from which topic, as data, so the document, the apply script
// (`npm run kafka:acls`), `arvis doctor`'s ACL check and the spec on the secured broker are the
// same table.
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin } from 'kafkajs';
import { z } from 'zod';
import { commonEnvShape, envJson, envString, kafkaSecurityEnvShape, resultTopicTenantsEnv } from '@arvis/config';
import type { Topics } from '@arvis/contracts';

/** The throwaway consumer groups of the admin API's dead-letter reader (the table grants them to the authorizer). */
export const ADMIN_READER_GROUP_PREFIX = 'arvis-admin-reader-';
/** The throwaway consumer groups that read the journal topic's head (ADR 0055). */
export const JOURNAL_HEAD_READER_GROUP_PREFIX = 'arvis-journal-head-';

/** The roles of the table; each is granted to one or more principals (`User:<name>`). */
export const ACL_ROLES = ['authorizer', 'dispatcher', 'relay', 'producer', 'analyst'] as const;
export type AclRole = (typeof ACL_ROLES)[number];

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
  /** Consumer groups of the two services (KAFKA_GROUP_ID). */
  groups: { authorizer: string; dispatcher: string };
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
  KAFKA_ACL_PRINCIPALS: envJson(z.partialRecord(z.enum(ACL_ROLES), z.array(principal)), {}),
  /** The tenants with result topics (ADR 0073): the services' list; each topic gets LITERAL ACLs. */
  RESULT_TOPIC_TENANTS: resultTopicTenantsEnv(),
  /** Tenant -> the principals that read its result topic, e.g. {"acme": ["User:agent-acme"]}; a tenant left out gets no reader. */
  KAFKA_RESULT_READERS: envJson(z.record(z.string().min(1), z.array(principal)), {}),
  /** The services' KAFKA_GROUP_ID. */
  AUTHORIZER_GROUP_ID: envString('arvis-authorizer'),
  DISPATCHER_GROUP_ID: envString('arvis-dispatcher'),
});

/** Each role's principals: those named (KAFKA_ACL_PRINCIPALS), the others `User:<role>`. */
export function tablePrincipals(named: Partial<Record<AclRole, string[]>> = {}): Record<AclRole, string[]> {
  return Object.fromEntries(ACL_ROLES.map((r) => [r, named[r] ?? [`User:${r}`]])) as Record<AclRole, string[]>;
}

/** Prefixes of the throwaway consumer groups the journal watcher and the CLI create per run. */
export const ANALYST_GROUP_PREFIXES = ['arvis-journal-watcher-', 'arvis-cli-'];

export function aclTable({ topics, groups, results = {} }: AclPlan): AclRule[] {
  const topic = (role: AclRole, name: string, operations: AclOperation[], why: string): AclRule => ({ role, resource: 'topic', name, prefixed: false, operations, why });
  const group = (role: AclRole, name: string, operations: AclOperation[], why: string, prefixed = false): AclRule => ({ role, resource: 'group', name, prefixed, operations, why });
  // Every outbox row (intents, journal copies, dead letters of either service) is published by
  // whichever process holds the relay lock: the standalone relay or either service's own relay.
  const publishesOutbox = (role: AclRole) => [
    topic(role, topics.intents, ['Write'], 'relay: intents (authorizer) and redeliveries (dispatcher)'),
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
    const roles = ACL_ROLES.filter((r) => principals[r].includes(principal));
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
