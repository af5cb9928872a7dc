// Applies the ACL table (scripts/kafka-acls.ts, docs/kafka-security.md) to a secured broker, as a
// principal allowed to alter ACLs (the admin): run once after create-topics.
import { z } from 'zod';
import { commonEnvShape, ConfigError, envJson, envString, kafkaSecurity, kafkaSecurityEnvShape, loadConfig, topicsFor } from '@arvis/config';
import { createKafka } from '@arvis/kafka';
import { aclTable, ACL_ROLES, applyAcls, type AclRole } from './kafka-acls';

const principal = z.string().regex(/^User:[^\s]+$/, 'a principal is User:<name>');
const defaults = Object.fromEntries(ACL_ROLES.map((r) => [r, [`User:${r}`]])) as Record<AclRole, string[]>;

async function main(): Promise<void> {
  const env = loadConfig(
    z.object({
      KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
      ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
      ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
      ...kafkaSecurityEnvShape,
      /** Role -> principals, e.g. {"producer": ["User:agent-a", "User:agent-b"]}; roles left out keep User:<role>. */
      KAFKA_ACL_PRINCIPALS: envJson(z.partialRecord(z.enum(ACL_ROLES), z.array(principal)), {}),
      /** The services' KAFKA_GROUP_ID. */
      AUTHORIZER_GROUP_ID: envString('arvis-authorizer'),
      DISPATCHER_GROUP_ID: envString('arvis-dispatcher'),
    }),
  );
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  if (issues.length > 0) throw new ConfigError(issues);
  const rules = aclTable({ topics: topicsFor(env.ARVIS_TOPIC_PREFIX), groups: { authorizer: env.AUTHORIZER_GROUP_ID, dispatcher: env.DISPATCHER_GROUP_ID } });
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
