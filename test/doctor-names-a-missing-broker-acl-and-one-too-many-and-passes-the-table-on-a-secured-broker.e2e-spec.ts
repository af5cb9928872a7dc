import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import { topicsFor } from '@arvis/config';
import { createKafka, describeAllAcls } from '@arvis/kafka';
import { doctor, envFiles, type DoctorReport } from './support/doctor';
import { createEnvironment, groupOf, type TestEnvironment } from './support/environment';
import { SecureBroker, SECURE_BROKERS } from './support/secure-broker';

// `arvis doctor --kafka-admin-env` on a secured broker (SASL SCRAM over TLS, nothing allowed
// without an ACL): the ACLs are listed as the operator principal and each principal is held to
// the table (libs/kafka acl-table) that `npm run kafka:acls` applied.
const broker = new SecureBroker(['authorizer', 'dispatcher', 'producer', 'analyst']);
// The relay role runs inside both services here, as in the SASL spec; the other roles keep User:<role>.
const PRINCIPALS = JSON.stringify({ relay: [] });

describe('arvis doctor: the broker\'s ACLs against the table', () => {
  const envFile = envFiles('arvis-doctor-acls-');
  let env: TestEnvironment;
  let args: string[];
  const aclChecks = (r: DoctorReport) => r.checks.filter((c) => c.name.startsWith('broker ACLs')).map((c) => [c.name, c.status, c.detail]);

  beforeAll(async () => {
    await broker.start();
    env = await createEnvironment('doctoracls', { kafka: { brokers: SECURE_BROKERS, security: broker.as('admin') } });
    const groups = { AUTHORIZER_GROUP_ID: groupOf(env, 'authorizer'), DISPATCHER_GROUP_ID: groupOf(env, 'dispatcher') };
    await broker.applyAcls(env.topicPrefix, { KAFKA_ACL_PRINCIPALS: PRINCIPALS, ...groups });
    const service = (name: 'authorizer' | 'dispatcher') => envFile(`${name}.env`, { ...env.appEnv, ...broker.env(name), KAFKA_GROUP_ID: groupOf(env, name) });
    const admin = envFile('kafka-admin.env', { KAFKA_BROKERS: SECURE_BROKERS.join(','), ARVIS_TOPIC_PREFIX: env.topicPrefix, ...broker.env('admin'), KAFKA_ACL_PRINCIPALS: PRINCIPALS, ...groups });
    args = ['--authorizer-env', service('authorizer'), '--dispatcher-env', service('dispatcher'), '--kafka-admin-env', admin, '--json'];
  }, 180_000);

  afterAll(async () => {
    await broker.stop();
  });

  it('passes every principal holding exactly what the table grants it', async () => {
    const r = await doctor(args);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect({ code: r.code, failed: report.failed }).toEqual({ code: 0, failed: [] });
    expect(aclChecks(report)).toEqual([
      ['broker ACLs (User:authorizer)', 'ok', 'User:authorizer holds exactly the authorizer rules (14 ACLs)'],
      ['broker ACLs (User:dispatcher)', 'ok', 'User:dispatcher holds exactly the dispatcher rules (9 ACLs)'],
      ['broker ACLs (User:producer)', 'ok', 'User:producer holds exactly the producer rules (1 ACL)'],
      ['broker ACLs (User:analyst)', 'ok', 'User:analyst holds exactly the analyst rules (7 ACLs)'],
    ]);
    // Topics are checked as the operator principal too.
    expect(report.checks.filter((c) => c.name.startsWith('topic ')).map((c) => c.status)).toEqual(Object.values(topicsFor(env.topicPrefix)).map(() => 'ok'));
  });

  it('names the dispatcher missing its Read on the intents topic and the analyst allowed to write decisions, and nothing else', async () => {
    const topics = topicsFor(env.topicPrefix);
    const admin = createKafka({ brokers: SECURE_BROKERS, security: broker.as('admin'), clientId: 'doctor-acls-spec' }).admin();
    await admin.connect();
    try {
      await admin.deleteAcls({
        filters: [{
          resourceType: AclResourceTypes.TOPIC, resourceName: topics.intents, resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: 'User:dispatcher', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW,
        }],
      });
      await admin.createAcls({
        acl: [{
          resourceType: AclResourceTypes.TOPIC, resourceName: topics.decisions, resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: 'User:analyst', host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.ALLOW,
        }],
      });
      // The broker's authorizer takes both from the metadata log, not at once.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const held = await describeAllAcls(admin);
        const has = (principal: string, name: string, operation: string) => held.some((a) => a.principal === principal && a.name === name && a.operation === operation);
        if (!has('User:dispatcher', topics.intents, 'Read') && has('User:analyst', topics.decisions, 'Write')) break;
        if (Date.now() > deadline) throw new Error('the broker does not list the changed ACLs after 30 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.disconnect();
    }
    const r = await doctor(args);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect({ code: r.code, failed: report.failed }).toEqual({ code: 2, failed: ['broker ACLs (User:dispatcher)', 'broker ACLs (User:analyst)'] });
    expect(aclChecks(report).filter(([, status]) => status === 'fail').map(([, , detail]) => detail)).toEqual([
      `User:dispatcher lacks Read on topic ${topics.intents} (consumes intents; reads their end offsets (redelivery lag)): the broker would refuse those requests (npm run kafka:acls)`,
      `User:analyst may also Write on topic ${topics.decisions}: more than the analyst rules grant`,
    ]);
    const text = await doctor(args.filter((a) => a !== '--json'));
    expect(text.stdout.trim().split('\n')).toEqual(expect.arrayContaining([
      `FAIL  broker ACLs (User:dispatcher): User:dispatcher lacks Read on topic ${topics.intents} (consumes intents; reads their end offsets (redelivery lag)): the broker would refuse those requests (npm run kafka:acls)`,
      'doctor: 2 failed: broker ACLs (User:dispatcher), broker ACLs (User:analyst)',
    ]));
  });
});
