import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import type { KafkaSecurity } from '@arvis/config';
import { createKafka, createProducer } from '@arvis/kafka';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { SecureBroker, SECURE_BROKERS } from './support/secure-broker';
import { ROOT } from './support/services';
import { Stack } from './support/stack';
import { adminApi } from './support/admin-api';
import type { RunningApp } from './support/services';
import { readDedupeFence } from '../apps/authorizer/src/retention/prune-records/dedupe-fence';
import { readRecord } from '../apps/authorizer/src/admin/redrive-dead-letter/read-dead-letter';

// The secured broker (test/support/secure-broker.ts): SASL SCRAM over TLS, nothing allowed without an ACL.
const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const USERS = ['authorizer', 'dispatcher', 'producer', 'analyst', 'rogue'] as const;
type User = (typeof USERS)[number] | 'admin';
const broker = new SecureBroker(USERS);
const BROKERS = SECURE_BROKERS;
const as = (u: User): KafkaSecurity => broker.as(u);
const saslEnv = (u: User) => broker.env(u);
// The table's roles, each granted to its own user; the relay role runs inside both services here.
// Roles left out keep User:<role> (authorizer, dispatcher, producer, analyst).
const PRINCIPALS = { relay: [] as string[] };

/** The error kafkajs wraps around the broker's answer: its type, wherever in the chain. */
function brokerErrorType(e: unknown): string | undefined {
  for (let cur = e as { type?: unknown; cause?: unknown } | undefined, depth = 0; cur && depth < 8; cur = cur.cause as typeof cur, depth++) {
    if (typeof cur.type === 'string') return cur.type;
  }
  return undefined;
}

describe('the apps on a SASL (SCRAM over TLS) broker with ACLs, each as its own principal', () => {
  let stack: Stack;
  let h: Harness;
  let authorizerApp: RunningApp;

  beforeAll(async () => {
    await broker.start();
    stack = await Stack.create('securekafka', { kafka: { brokers: BROKERS, security: as('admin') } });
    // The table applied as an operator would: npm run kafka:acls, as the admin.
    await broker.applyAcls(stack.env.topicPrefix, {
      KAFKA_ACL_PRINCIPALS: JSON.stringify(PRINCIPALS),
      AUTHORIZER_GROUP_ID: groupOf(stack.env, 'authorizer'),
      DISPATCHER_GROUP_ID: groupOf(stack.env, 'dispatcher'),
    });
    [authorizerApp] = await Promise.all([
      stack.start('authorizer', 'authorizer', { env: saslEnv('authorizer') }),
      stack.start('dispatcher', 'dispatcher', { env: saslEnv('dispatcher') }),
    ]);
    h = await new Harness(stack.env, { client: as('producer'), journal: as('analyst') }).start();
  });

  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await broker.stop();
  });

  it('journals a decision sent by the producer principal, read back by the analyst principal', async () => {
    const [d] = await h.decisions('sasl-run', 1);
    await h.client.send([d]);
    expect(await h.journal.waitFor(() => h.journal.finalEntriesFor([d.decisionId]).size === 1, 60_000)).toBe(true);
    const [entry] = h.journal.finalEntriesFor([d.decisionId]).get(d.decisionId)!;
    expect({ kind: entry.kind, success: entry.success }).toEqual({ kind: 'tool_result', success: true });
    // The analyst CLI takes the same settings: it follows the journal topic as the analyst.
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'tail', '--from-beginning', '--run', 'sasl-run', '--limit', '1', '--json'], {
      env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: BROKERS.join(','), ARVIS_TOPIC_PREFIX: stack.env.topicPrefix, ...saslEnv('analyst') },
      timeout: 60_000,
    });
    expect((JSON.parse(stdout.trim().split('\n')[0]) as { runId: string }).runId).toBe('sasl-run');
  });

  it('refuses, at the broker, a rogue principal (and the producer and analyst) writing to the intents topic; nothing runs', async () => {
    const admin = createKafka({ brokers: BROKERS, security: as('admin'), clientId: 'securekafka-offsets' }).admin();
    await admin.connect();
    const ends = async () => (await admin.fetchTopicOffsets(h.topics.intents)).map((o) => `${o.partition}:${o.high}`).join(',');
    const capabilities = async () => (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM capabilities'))[0].n;
    try {
      const before = { ends: await ends(), capabilities: await capabilities() };
      const forged = JSON.stringify({ specVersion: 1, runId: 'rogue-run', tool: 'ledger.transfer', payload: { amount: 1_000_000 } });
      const outcomes: Record<string, string | undefined> = {};
      for (const user of ['rogue', 'producer', 'analyst'] as const) {
        // Quiet: kafkajs would log the broker's refusal as an error, which is what this expects.
        const producer = createProducer(new Kafka({ brokers: BROKERS, ...as(user), clientId: `securekafka-${user}`, logLevel: logLevel.NOTHING }));
        await producer.connect();
        outcomes[user] = await producer
          .send({ topic: h.topics.intents, acks: -1, messages: [{ key: 'rogue-run', value: forged }] })
          .then(() => 'accepted', brokerErrorType)
          .finally(() => producer.disconnect());
      }
      expect(outcomes).toEqual({ rogue: 'TOPIC_AUTHORIZATION_FAILED', producer: 'TOPIC_AUTHORIZATION_FAILED', analyst: 'TOPIC_AUTHORIZATION_FAILED' });
      // Not one record reached the topic, so the dispatcher had nothing to run.
      expect({ ends: await ends(), capabilities: await capabilities() }).toEqual(before);
    } finally {
      await admin.disconnect();
    }
  });
  // The admin API's dead-letter reader and retention's check of the decisions topic connected
  // without the service's SASL/TLS, and the ACL table gave them no rights: on this broker both failed.
  it("reads a dead letter and the decisions topic's low watermarks and retention as the authorizer's own principal", async () => {
    const producer = createProducer(new Kafka({ brokers: BROKERS, ...as('producer'), clientId: 'securekafka-garbage', logLevel: logLevel.NOTHING }));
    await producer.connect();
    await producer.send({ topic: h.topics.decisions, acks: -1, messages: [{ key: 'sasl-dlq-run', value: 'not json at all' }] }).finally(() => producer.disconnect());
    const admin = createKafka({ brokers: BROKERS, security: as('admin'), clientId: 'securekafka-dlq-offsets' }).admin();
    await admin.connect();
    let at: { partition: number; offset: string } | undefined;
    try {
      await h.waitUntil('the dead letter on its topic', async () => {
        const o = (await admin.fetchTopicOffsets(h.topics.decisionsDlq)).find((p) => p.high !== '0');
        at = o && { partition: o.partition, offset: String(BigInt(o.high) - 1n) };
        return at !== undefined;
      });
    } finally {
      await admin.disconnect();
    }
    const authorizer = { brokers: BROKERS, security: as('authorizer') };
    const record = await readRecord(authorizer, h.topics.decisionsDlq, at!.partition, at!.offset);
    expect((JSON.parse(record!.value!.toString()) as { reasonCode: string }).reasonCode).toBe('malformed_message');
    const fence = await readDedupeFence({ ...authorizer, clientId: 'securekafka-fence' }, h.topics.decisions, 60_000);
    expect(typeof fence === 'string' ? fence : { partitions: fence.lowWatermarks.size }).toEqual({ partitions: 6 });
    // Without the service's credentials (as both did before) the broker refuses.
    expect(typeof (await readDedupeFence({ brokers: BROKERS, security: { ssl: as('authorizer').ssl }, clientId: 'securekafka-anonymous' }, h.topics.decisions, 60_000))).toBe('string');
  });

  // A re-driven decision dead letter was enqueued to the decisions topic, which no outbox publisher
  // may write: the broker refused every batch for authorization and the relay retried it for ever,
  // holding back every row behind it. And a re-driven decision can never authenticate again (its
  // token is not kept, or it had none), so the re-drive is not offered (ADR 0036).
  it('refuses to re-drive a dead-lettered decision, and quarantines a row the broker refuses for authorization while the relay goes on', async () => {
    const api = adminApi(authorizerApp);
    const olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
    const producer = createProducer(new Kafka({ brokers: BROKERS, ...as('producer'), clientId: 'securekafka-garbage-2', logLevel: logLevel.NOTHING }));
    await producer.connect();
    const [sent] = await producer.send({ topic: h.topics.decisions, acks: -1, messages: [{ key: 'sasl-redrive-run', value: 'not json either' }] }).finally(() => producer.disconnect());
    // Any dead letter of a decision will do (an earlier test left one too): none may be re-driven.
    let dead: { partition: number; offset: string } | undefined;
    const admin = createKafka({ brokers: BROKERS, security: as('admin'), clientId: 'securekafka-dlq-offsets-2' }).admin();
    await admin.connect();
    try {
      await h.waitUntil('the dead letter on its topic', async () => {
        const offsets = await admin.fetchTopicOffsets(h.topics.decisionsDlq);
        const total = offsets.reduce((n, o) => n + Number(BigInt(o.high) - BigInt(o.low)), 0);
        const o = offsets.find((p) => BigInt(p.high) > BigInt(p.low));
        dead = o && { partition: o.partition, offset: String(BigInt(o.high) - 1n) };
        return total >= 1;
      });
    } finally {
      await admin.disconnect();
    }
    expect(sent.errorCode).toBe(0);
    expect(await api('POST', '/admin/dead-letters/redrive', olga, { dlq: 'decisions', ...dead! })).toMatchObject({ status: 409, body: { error: 'decision_not_redrivable' } });
    // Discarding it is still offered.
    expect(await api('POST', '/admin/dead-letters/discard', olga, { dlq: 'decisions', ...dead! })).toMatchObject({ status: 200, body: { disposition: 'discarded' } });

    // A row to a topic this relay may not write (what the re-drive enqueued), then a decision.
    const [refused] = await h.query<{ seq: string }>(
      `INSERT INTO outbox (topic, message_key, payload) VALUES ($1, 'sasl-refused', '{"not":"allowed"}') RETURNING seq::text AS seq`,
      [h.topics.decisions],
    );
    const [d] = await h.decisions('sasl-after-refusal', 1);
    await h.client.send([d]);
    const failedBefore = (await stack.relayStats(authorizerApp)) as { failedBatches?: number } | null;
    await h.waitUntil('the row to be quarantined, or the relay to fail batch after batch', async () => {
      const [row] = await h.query<{ quarantined: boolean }>('SELECT quarantined_at IS NOT NULL AS quarantined FROM outbox WHERE seq = $1::bigint', [refused.seq]);
      const stats = (await stack.relayStats(authorizerApp)) as { failedBatches?: number } | null;
      return row?.quarantined === true || (stats?.failedBatches ?? 0) >= (failedBefore?.failedBatches ?? 0) + 5;
    });
    const [row] = await h.query<{ reason: string | null }>('SELECT quarantine_reason AS reason FROM outbox WHERE seq = $1::bigint', [refused.seq]);
    expect(row.reason).toMatch(/^broker_refused_authorization: /);
    // The relay went on: the decision ran and nothing but the quarantined row is left.
    await h.waitUntil('the decision to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    await h.waitUntil('the outbox to drain', async () => (await h.query('SELECT 1 FROM outbox WHERE quarantined_at IS NULL')).length === 0);
    const [listed] = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE quarantined_at IS NOT NULL AND discarded_at IS NULL');
    expect(listed.n).toBe('1');
  });

  it('creates topics as the admin (npm run topics) with the configured min.insync.replicas, and refuses a replication factor the brokers cannot meet', async () => {
    const createTopics = (prefix: string, replicas: string) =>
      promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'scripts', 'create-topics.js')], {
        env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: BROKERS.join(','), ARVIS_TOPIC_PREFIX: prefix, ...saslEnv('admin'), KAFKA_TOPIC_REPLICATION_FACTOR: replicas, KAFKA_TOPIC_MIN_INSYNC_REPLICAS: '1', TOPIC_PARTITIONS: '1' },
        timeout: 60_000,
      }).then(() => 'created', (e: { code?: number; stderr?: string }) => `exit ${e.code}: ${e.stderr ?? ''}`);
    expect(await createTopics(`${stack.env.topicPrefix}isr.`, '1')).toBe('created');
    const admin = createKafka({ brokers: BROKERS, security: as('admin'), clientId: 'securekafka-configs' }).admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: `${stack.env.topicPrefix}isr.arvis.intents`, configNames: ['min.insync.replicas'] }],
        includeSynonyms: false,
      });
      // Set on the topic itself, not the broker's default.
      expect(resources[0].configEntries.map((c) => [c.configName, c.configValue, c.isDefault])).toEqual([['min.insync.replicas', '1', false]]);
    } finally {
      await admin.disconnect();
    }
    // One broker cannot hold two replicas: the broker refuses, the script exits 1 naming why.
    const refused = await createTopics(`${stack.env.topicPrefix}rf2.`, '2');
    expect(refused).toMatch(/^exit 1: /);
    expect(refused).toMatch(/\[topics\] Topic creation errors\n(.*\n)*  \S+\.arvis\.intents: INVALID_REPLICATION_FACTOR/);
  });
});
