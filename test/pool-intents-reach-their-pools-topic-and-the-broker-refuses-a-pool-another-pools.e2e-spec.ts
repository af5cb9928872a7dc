import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dispatcherGroupOf, intentsTopicOf } from '@arvis/contracts';
import { createKafka, JOURNAL_HEAD_READER_GROUP_PREFIX } from '@arvis/kafka';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { SECURE_BROKERS, SecureBroker } from './support/secure-broker';
import { ROOT } from './support/services';
import { Stack } from './support/stack';
import { localToolPackages } from '../scripts/local-tools';

// Tool pools (ADR 0080) on the secured broker (SCRAM over TLS, StandardAuthorizer, nothing
// allowed without an ACL): `npm run topics` and `npm run kafka:acls` with TOOL_POOLS make each
// pool's intents topic and its dispatchers' ACLs. The authorizer routes an intent of the ledger
// pool's tool to `<intents>.pool.ledger` (intents.pool = ledger, that pool's fingerprint), which
// the ledger pool's principal reads in its own group; a shared tool still runs end to end. The
// broker refuses the ledger pool's principal another pool's intents and the shared ones, and the
// shared pool's principal the ledger pool's.
const FIXTURE = join(ROOT, 'test', 'support', 'tool-packages', 'routed-pool');
const POOLS = 'ledger,search';
const broker = new SecureBroker(['authorizer', 'dispatcher', 'dispatcher-ledger', 'dispatcher-search', 'producer']);
const run = promisify(execFile);

function brokerErrorType(e: unknown): string | undefined {
  for (let cur = e as { type?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0; cur && depth < 8; cur = (cur.cause ?? cur.errors?.[0]) as typeof cur, depth++) {
    if (typeof cur.type === 'string') return cur.type;
  }
  return undefined;
}

describe('tool pools on a secured broker', () => {
  let stack: Stack;
  let h: Harness;
  const topic = (pool: string) => intentsTopicOf(h.topics, pool);
  const poolGroup = (pool: string) => dispatcherGroupOf(groupOf(stack.env, 'dispatcher'), pool);

  beforeAll(async () => {
    await broker.start();
    stack = await Stack.create('poolacls', { toolPackages: [FIXTURE], kafka: { brokers: SECURE_BROKERS, security: broker.as('admin') } });
    // As an operator would: the pools' topics, then the ACLs, from the same TOOL_POOLS.
    await run(process.execPath, [join(ROOT, 'dist', 'scripts', 'create-topics.js')], {
      env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: SECURE_BROKERS.join(','), ARVIS_TOPIC_PREFIX: stack.env.topicPrefix, TOOL_POOLS: POOLS, ...broker.env('admin') },
      timeout: 60_000,
    });
    await broker.applyAcls(stack.env.topicPrefix, {
      TOOL_POOLS: POOLS,
      KAFKA_ACL_PRINCIPALS: JSON.stringify({ relay: [] }),
      AUTHORIZER_GROUP_ID: groupOf(stack.env, 'authorizer'),
      DISPATCHER_GROUP_ID: groupOf(stack.env, 'dispatcher'),
    });
    await stack.start('authorizer', 'authorizer', { env: broker.env('authorizer') });
    // The shared pool's dispatcher loads the shared pool's package only. No redelivery: sending a
    // pool's intent again by pool is the dispatcher side's (ADR 0080), not what this spec proves.
    await stack.start('dispatcher', 'dispatcher', { env: { ...broker.env('dispatcher'), ARVIS_TOOL_PACKAGES: localToolPackages(ROOT), REDELIVER_MAX_ATTEMPTS: '0' } });
    h = new Harness(stack.env, { client: broker.as('producer') });
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
    await broker.stop();
  });

  /** Reads `topic` as `user` in `groupId` from the beginning until a message satisfies `wanted`. */
  const readUntil = async (user: string, groupId: string, name: string, wanted: (value: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    const consumer = createKafka({ brokers: SECURE_BROKERS, security: broker.as(user), clientId: `pool-reader-${randomUUID()}` }).consumer({ groupId });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [name], fromBeginning: true });
      return await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such message on ${name} within 60 s`)), 60_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            const value = JSON.parse(message.value?.toString() ?? 'null') as Record<string, unknown>;
            if (!wanted(value)) return;
            clearTimeout(timer);
            resolve(value);
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
  };

  /**
   * What the broker answers `user` consuming `name` in `groupId`: the refusal's type, or
   * `fetched` once it fetched without one. Subscribing alone proves nothing here: every outbox
   * publisher may write (so describe) every pool's topic; reading it is what a pool's principal lacks.
   */
  const consumeAs = async (user: string, groupId: string, name: string): Promise<string> => {
    const consumer = createKafka({ brokers: SECURE_BROKERS, security: broker.as(user), clientId: `pool-probe-${randomUUID()}`, connectRetries: 1 }).consumer({ groupId, retry: { retries: 0 } });
    await consumer.connect();
    try {
      return await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('fetched'), 15_000);
        const done = (outcome: string) => {
          clearTimeout(timer);
          resolve(outcome);
        };
        consumer.on(consumer.events.CRASH, (e) => done(brokerErrorType(e.payload.error) ?? e.payload.error.message));
        consumer.on(consumer.events.FETCH, () => done('fetched'));
        consumer
          .subscribe({ topics: [name], fromBeginning: true })
          .then(() => consumer.run({ eachMessage: async () => undefined }))
          .catch((e: unknown) => done(brokerErrorType(e) ?? String(e)));
      });
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
  };

  it("makes each pool's intents topic with the intents topic's partition count", async () => {
    const admin = createKafka({ brokers: SECURE_BROKERS, security: broker.as('admin'), clientId: 'pool-topics-check' }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [h.topics.intents, topic('ledger'), topic('search')] });
      const counts = Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]));
      expect(counts).toEqual({ [h.topics.intents]: 6, [topic('ledger')]: 6, [topic('search')]: 6 });
    } finally {
      await admin.disconnect();
    }
  });

  it("routes a pool's intent to its pool's topic, which that pool's principal reads in its own group; a shared tool runs as before", async () => {
    const stamp = Date.now();
    const identity = await h.token();
    const shared = { decisionId: `pa-${stamp}-notes`, runId: `run-${stamp}-notes`, causalId: 'c1', tool: 'notes.append', payload: { text: 'shared pool' }, riskScore: 0.1, identity };
    const pooled = { decisionId: `pa-${stamp}-echo`, runId: `run-${stamp}-echo`, causalId: 'c1', tool: 'pooled.echo', payload: { text: 'ledger pool' }, riskScore: 0.1, identity };
    await h.client.send([shared, pooled]);
    expect(await h.outcomeOf(shared.decisionId)).toEqual(['tool_result', 'effect_completed']);
    const rows = await h.query<{ decision_id: string; pool: string; catalog_fingerprint: string; intent_id: string }>(
      'SELECT decision_id, pool, catalog_fingerprint, intent_id FROM intents WHERE decision_id = ANY($1) ORDER BY decision_id',
      [[shared.decisionId, pooled.decisionId]],
    );
    const [echoRow, notesRow] = rows;
    expect([echoRow.pool, notesRow.pool]).toEqual(['ledger', 'shared']);
    // Each pool's own fingerprint: the ledger pool's is not the shared pool's.
    expect(echoRow.catalog_fingerprint).not.toBe(notesRow.catalog_fingerprint);
    const message = await readUntil('dispatcher-ledger', poolGroup('ledger'), topic('ledger'), (v) => v.decisionId === pooled.decisionId);
    expect(message).toMatchObject({ intentId: echoRow.intent_id, tool: 'pooled.echo', catalogFingerprint: echoRow.catalog_fingerprint });
    // Nothing of the ledger pool went to the shared topic: the shared dispatcher never saw it.
    expect(await h.query('SELECT state FROM capabilities WHERE decision_id = $1', [pooled.decisionId])).toEqual([{ state: 'minted' }]);
  });

  it("refuses a pool's principal another pool's intents and the shared ones, and the shared pool's principal the ledger pool's", async () => {
    // Its own topic, in its own group: read.
    expect(await consumeAs('dispatcher-ledger', poolGroup('ledger'), topic('ledger'))).toBe('fetched');
    expect(await consumeAs('dispatcher-ledger', poolGroup('ledger'), topic('search'))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await consumeAs('dispatcher-ledger', poolGroup('ledger'), h.topics.intents)).toBe('TOPIC_AUTHORIZATION_FAILED');
    // In a throwaway group it may use (the journal head's), so the refusal is the topic's; its own
    // group has the running shared dispatcher in it.
    expect(await consumeAs('dispatcher', `${JOURNAL_HEAD_READER_GROUP_PREFIX}probe-${randomUUID()}`, topic('ledger'))).toBe('TOPIC_AUTHORIZATION_FAILED');
    // And its own topic in another pool's group: the broker refuses it the group's coordinator
    // (FindCoordinator answers GROUP_AUTHORIZATION_FAILED; kafkajs reports it as not found).
    expect(await consumeAs('dispatcher-search', poolGroup('ledger'), topic('search'))).toMatch(/GROUP_AUTHORIZATION_FAILED|Failed to find group coordinator/);
    expect(await consumeAs('dispatcher-search', poolGroup('search'), topic('search'))).toBe('fetched');
  });
});
