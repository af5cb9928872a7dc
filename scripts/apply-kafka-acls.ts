// Applies the ACL table (scripts/kafka-acls.ts, docs/kafka-security.md) to a secured broker, as a
// principal allowed to alter ACLs (the admin): run once after create-topics.
import { ConfigError, kafkaSecurity, loadConfig, resultTopicsFor, topicsFor } from '@arvis/config';
import { createKafka } from '@arvis/kafka';
import { aclTable, ACL_ROLES, applyAcls, type AclRole } from './kafka-acls';
import { AclsEnv } from './script-env';

const defaults = Object.fromEntries(ACL_ROLES.map((r) => [r, [`User:${r}`]])) as Record<AclRole, string[]>;

async function main(): Promise<void> {
  const env = loadConfig(AclsEnv);
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  const unknown = Object.keys(env.KAFKA_RESULT_READERS).filter((t) => !env.RESULT_TOPIC_TENANTS.includes(t));
  if (unknown.length > 0) issues.push(`KAFKA_RESULT_READERS: ${unknown.join(', ')} not in RESULT_TOPIC_TENANTS (no result topic to read)`);
  if (issues.length > 0) throw new ConfigError(issues);
  const topics = resultTopicsFor(env.ARVIS_TOPIC_PREFIX, env.RESULT_TOPIC_TENANTS);
  const results = Object.fromEntries(Object.entries(topics).map(([tenant, topic]) => [tenant, { topic, readers: env.KAFKA_RESULT_READERS[tenant] ?? [] }]));
  const rules = aclTable({ topics: topicsFor(env.ARVIS_TOPIC_PREFIX), groups: { authorizer: env.AUTHORIZER_GROUP_ID, dispatcher: env.DISPATCHER_GROUP_ID }, results });
  const admin = createKafka({ brokers: env.KAFKA_BROKERS.split(','), security, clientId: 'arvis-acls' }).admin();
  await admin.connect();
  try {
    const n = await applyAcls(admin, rules, { ...defaults, ...env.KAFKA_ACL_PRINCIPALS });
    console.log(`[acls] ${n} ACLs in place for ${rules.length} rules`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((e: Error) => {
  console.error(`[acls] ${e.message}`);
  process.exit(e instanceof ConfigError ? 78 : 1);
});
