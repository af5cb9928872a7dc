// Applies the ACL table (libs/kafka/src/acl-table.ts, docs/kafka-security.md) to a secured broker, as a
// principal allowed to alter ACLs (the admin): run once after create-topics.
import { ConfigError, kafkaSecurity, loadConfig, resultTopicsFor, topicsFor } from '@arvis/config';
import { aclTable, applyAcls, createKafka, tablePrincipals, unknownAclRoles } from '@arvis/kafka';
import { AclsEnv } from './script-env';

async function main(): Promise<void> {
  const env = loadConfig(AclsEnv);
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  const unknown = Object.keys(env.KAFKA_RESULT_READERS).filter((t) => !env.RESULT_TOPIC_TENANTS.includes(t));
  if (unknown.length > 0) issues.push(`KAFKA_RESULT_READERS: ${unknown.join(', ')} not in RESULT_TOPIC_TENANTS (no result topic to read)`);
  const roles = unknownAclRoles(env.KAFKA_ACL_PRINCIPALS, env.TOOL_POOLS);
  if (roles.length > 0) issues.push(`KAFKA_ACL_PRINCIPALS: ${roles.join(', ')} not a role of the table (a pool's dispatchers need the pool in TOOL_POOLS)`);
  if (issues.length > 0) throw new ConfigError(issues);
  const topics = resultTopicsFor(env.ARVIS_TOPIC_PREFIX, env.RESULT_TOPIC_TENANTS);
  const results = Object.fromEntries(Object.entries(topics).map(([tenant, topic]) => [tenant, { topic, readers: env.KAFKA_RESULT_READERS[tenant] ?? [] }]));
  const rules = aclTable({ topics: topicsFor(env.ARVIS_TOPIC_PREFIX), groups: { authorizer: env.AUTHORIZER_GROUP_ID, dispatcher: env.DISPATCHER_GROUP_ID }, results, pools: env.TOOL_POOLS });
  const admin = createKafka({ brokers: env.KAFKA_BROKERS.split(','), security, clientId: 'arvis-acls' }).admin();
  await admin.connect();
  try {
    const n = await applyAcls(admin, rules, tablePrincipals(env.KAFKA_ACL_PRINCIPALS, env.TOOL_POOLS));
    console.log(`[acls] ${n} ACLs in place for ${rules.length} rules`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((e: Error) => {
  console.error(`[acls] ${e.message}`);
  process.exit(e instanceof ConfigError ? 78 : 1);
});
