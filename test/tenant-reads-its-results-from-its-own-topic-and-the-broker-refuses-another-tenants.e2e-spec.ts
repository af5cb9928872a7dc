import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KafkaSecurity } from '@arvis/config';
import { resultTopicsFor } from '@arvis/config';
import { fetchResult, ResultWatcher, type DecisionInput } from '@arvis/decision-client';
import { createKafka } from '@arvis/kafka';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { DATA, ROOT, type RunningApp } from './support/services';
import { metric, Stack } from './support/stack';

// Per-tenant result topics (ADR 0073) on the secured broker (SCRAM over TLS, StandardAuthorizer,
// nothing allowed without an ACL; scripts/kafka.sh start-secure): every relay copies a final entry
// to its tenant's topic in the same send as the journal copy; `npm run topics` creates the topics
// from RESULT_TOPIC_TENANTS and `npm run kafka:acls` gives each tenant's reader LITERAL Read on its
// own. A tenant's agent reads its results there (and by the API) and the broker refuses it
// another tenant's topic. A result for a tenant without a topic is counted and kept.
const OFFSET = Number(process.env.ARVIS_TEST_PORT_OFFSET ?? 0);
const PORT = process.env.KAFKA_SECURE_PORT ?? String(9095 + OFFSET);
const CONTROLLER_PORT = process.env.KAFKA_SECURE_CONTROLLER_PORT ?? String(19095 + OFFSET);
const BROKERS = [`127.0.0.1:${PORT}`];
const ADMIN_PASSWORD = 'admin-secret-for-the-results-spec';
const USERS = ['authorizer', 'dispatcher', 'producer', 'agent-acme', 'agent-globex'] as const;
type User = (typeof USERS)[number] | 'admin';
const passwordOf = (u: User) => (u === 'admin' ? ADMIN_PASSWORD : `${u}-pw-${PORT}`);
const CA_FILE = join(process.env.KAFKA_SECURE_DATA_DIR ?? join(DATA, 'kafka-secure'), 'run', 'tls', 'ca.pem');
const as = (u: User): KafkaSecurity => ({ ssl: { ca: [readFileSync(CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: u, password: passwordOf(u) } });
const saslEnv = (u: User) => ({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: CA_FILE, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: u, KAFKA_SASL_PASSWORD: passwordOf(u) });
const brokerEnv = {
  ...process.env,
  KAFKA_SECURE_TLS: 'true',
  KAFKA_SECURE_PORT: PORT,
  KAFKA_SECURE_CONTROLLER_PORT: CONTROLLER_PORT,
  KAFKA_SECURE_ADMIN_PASSWORD: ADMIN_PASSWORD,
  KAFKA_SECURE_USERS: USERS.map((u) => `${u}=${passwordOf(u)}`).join(' '),
};
const run = promisify(execFile);
const kafkaScript = (command: string) => run('bash', [`${ROOT}/scripts/kafka.sh`, command], { env: brokerEnv, timeout: 120_000 });
// acme.eu: a tenant name with a character topic names cannot hold. umbrella: configured for the
// services, but its topic was never created. initech: no result topic at all.
const TOPIC_TENANTS = ['acme', 'globex', 'acme.eu'];
const SERVICE_TENANTS = [...TOPIC_TENANTS, 'umbrella'];

function brokerErrorType(e: unknown): string | undefined {
  for (let cur = e as { type?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0; cur && depth < 8; cur = (cur.cause ?? cur.errors?.[0]) as typeof cur, depth++) {
    if (typeof cur.type === 'string') return cur.type;
  }
  return undefined;
}

describe('per-tenant result topics on a secured broker', () => {
  let stack: Stack;
  let h: Harness;
  let apps: RunningApp[];
  let topics: Readonly<Record<string, string>>;

  beforeAll(async () => {
    await kafkaScript('start-secure');
    stack = await Stack.create('resulttopics', { kafka: { brokers: BROKERS, security: as('admin') } });
    topics = resultTopicsFor(stack.env.topicPrefix, SERVICE_TENANTS);
    const script = (name: string, env: Record<string, string>) =>
      run(process.execPath, [join(ROOT, 'dist', 'scripts', name)], {
        env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: BROKERS.join(','), ARVIS_TOPIC_PREFIX: stack.env.topicPrefix, ...saslEnv('admin'), ...env },
        timeout: 60_000,
      });
    // As an operator would: the topics, then the ACLs, from the tenants' list (umbrella left out).
    await script('create-topics.js', { RESULT_TOPIC_TENANTS: JSON.stringify(TOPIC_TENANTS), TOPIC_PARTITIONS: '3' });
    await script('apply-kafka-acls.js', {
      RESULT_TOPIC_TENANTS: JSON.stringify(TOPIC_TENANTS),
      KAFKA_RESULT_READERS: JSON.stringify({ acme: ['User:agent-acme'], globex: ['User:agent-globex'] }),
      KAFKA_ACL_PRINCIPALS: JSON.stringify({ relay: [] }),
      AUTHORIZER_GROUP_ID: groupOf(stack.env, 'authorizer'),
      DISPATCHER_GROUP_ID: groupOf(stack.env, 'dispatcher'),
    });
    const env = { RESULT_TOPIC_TENANTS: JSON.stringify(SERVICE_TENANTS) };
    apps = await Promise.all([
      stack.start('authorizer', 'authorizer', { env: { ...env, ...saslEnv('authorizer') } }),
      stack.start('dispatcher', 'dispatcher', { env: { ...env, ...saslEnv('dispatcher') } }),
    ]);
    h = new Harness(stack.env, { client: as('producer') });
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await kafkaScript('stop-secure');
  });

  const decision = async (id: string, tenant: string, principal = 'alice'): Promise<DecisionInput> => ({
    decisionId: id,
    runId: `run-${id}`,
    causalId: 'c1',
    tool: 'notes.append',
    payload: { text: `note of ${tenant}` },
    riskScore: 0.1,
    identity: await h.token({ tenant, principal }),
  });
  const watcher = async (user: User, tenant: string, topic: string) => {
    const w = new ResultWatcher({ brokers: BROKERS, security: as(user) }, topic, { tenant, principal: 'alice' });
    await w.start();
    return w;
  };

  it("a tenant's agent reads its own results from its topic, and by the API; another tenant's land on theirs", async () => {
    expect(topics['acme.eu']).toBe(`${stack.env.topicPrefix}arvis.results.acme_2eeu`);
    const acme = await watcher('agent-acme', 'acme', topics.acme);
    const globex = await watcher('agent-globex', 'globex', topics.globex);
    try {
      const stamp = Date.now();
      const mine = [await decision(`rt-${stamp}-a1`, 'acme'), await decision(`rt-${stamp}-a2`, 'acme')];
      const theirs = await decision(`rt-${stamp}-a1`, 'globex'); // the same id, another tenant
      await h.client.send([...mine, theirs]);
      for (const d of mine) expect(await acme.waitFor(d.decisionId, 60_000)).toMatchObject({ decisionId: d.decisionId, tenant: 'acme', kind: 'tool_result', success: true });
      expect(await globex.waitFor(theirs.decisionId, 60_000)).toMatchObject({ tenant: 'globex', kind: 'tool_result' });
      // acme's topic carries only acme's final entries: nothing of globex was there to skip.
      expect(acme.stats).toMatchObject({ kept: 2, skipped: 0, unreadable: 0 });
      // The same result by the API, with the token it was sent with.
      const api = `http://127.0.0.1:${apps[0].apiPort}`;
      expect(await fetchResult(api, mine[0].identity, mine[0].decisionId, { waitS: 10 })).toMatchObject({ status: 'final', entry: { tenant: 'acme', decisionId: mine[0].decisionId } });
      expect(await fetchResult(api, await h.token({ tenant: 'globex', principal: 'alice' }), mine[1].decisionId)).toEqual({ status: 'not_found' });
    } finally {
      await Promise.all([acme.stop(), globex.stop()]);
    }
  });

  it("the broker refuses acme's agent globex's result topic and the journal topic", async () => {
    const refused = async (topic: string) => {
      const w = new ResultWatcher({ brokers: BROKERS, security: as('agent-acme') }, topic, { tenant: 'acme', principal: 'alice' });
      return w.start().then(
        async () => {
          await w.stop();
          return 'read';
        },
        (e: unknown) => brokerErrorType(e) ?? String(e),
      );
    };
    expect(await refused(topics.globex)).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await refused(h.topics.journal)).toBe('TOPIC_AUTHORIZATION_FAILED');
    // And a consumer that skips the offsets lookup and just fetches is refused too.
    const consumer = createKafka({ brokers: BROKERS, security: as('agent-acme'), clientId: 'rt-sneaky' }).consumer({ groupId: `arvis-result-watcher-sneaky-${Date.now()}` });
    await consumer.connect();
    try {
      const outcome = await consumer.subscribe({ topics: [topics.globex], fromBeginning: true }).then(
        () => consumer.run({ eachMessage: async () => undefined }).then(() => 'running'),
        (e: unknown) => brokerErrorType(e) ?? String(e),
      );
      expect(outcome).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await consumer.disconnect();
    }
  });

  it('a result of a tenant without a topic, or whose topic is missing, is counted and kept, and holds back nothing', async () => {
    const stamp = Date.now();
    const orphans = [await decision(`rt-${stamp}-initech`, 'initech'), await decision(`rt-${stamp}-umbrella`, 'umbrella')];
    const acme = await watcher('agent-acme', 'acme', topics.acme);
    try {
      const after = await decision(`rt-${stamp}-after`, 'acme');
      await h.client.send(orphans);
      for (const d of orphans) await h.outcomeOf(d.decisionId);
      await h.client.send([after]);
      expect(await acme.waitFor(after.decisionId, 60_000)).toMatchObject({ tenant: 'acme' });
    } finally {
      await acme.stop();
    }
    const counted = async (outcome: string) => (await Promise.all(apps.map((a) => metric(a, `arvis_result_copies_total{outcome="${outcome}"}`)))).reduce((a, b) => a + b, 0);
    expect(await counted('no_result_topic')).toBeGreaterThanOrEqual(1);
    expect(await counted('result_topic_missing')).toBeGreaterThanOrEqual(1);
    expect(await counted('published')).toBeGreaterThanOrEqual(4);
    // Kept: the final entries are in the journal, and nothing is left in the outbox.
    expect((await h.finalRows(orphans.map((d) => d.decisionId))).map((r) => r.kind)).toEqual(['tool_result', 'tool_result']);
    await h.waitUntil('the outbox to drain', async () => (await h.query('SELECT 1 FROM outbox')).length === 0);
  });
});
