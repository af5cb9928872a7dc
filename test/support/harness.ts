import type { Admin } from 'kafkajs';
import { Pool } from 'pg';
import { topicsFor, type KafkaSecurity } from '@arvis/config';
import type { Topics } from '@arvis/contracts';
import { DecisionClient, JournalWatcher, mintIdentityToken, type DecisionInput } from '@arvis/decision-client';
import { createKafka, createProducer } from '@arvis/kafka';
import type { TestEnvironment } from './environment';
import { LOCAL_ADMIN_AUDIENCE } from '../../scripts/local-keys';

/** What a spec uses to drive the running system and look at its database and topics. */
export class Harness {
  readonly db: Pool;
  readonly topics: Topics;
  readonly client: DecisionClient;
  readonly journal: JournalWatcher;

  /** On a secured broker: the principals the decision client and the journal watcher act as. */
  constructor(
    readonly env: TestEnvironment,
    as: { client?: KafkaSecurity; journal?: KafkaSecurity } = {},
  ) {
    this.db = new Pool({ connectionString: env.databaseUrl, max: 2 });
    this.topics = topicsFor(env.topicPrefix);
    this.client = new DecisionClient({ brokers: env.brokers, security: as.client }, this.topics, 'arvis-test-client');
    this.journal = new JournalWatcher({ brokers: env.brokers, security: as.journal }, this.topics);
  }

  async start(): Promise<this> {
    await this.journal.start();
    return this;
  }

  token(claims: Partial<{ principal: string; tenant: string; serviceId: string; sessionId: string; roles: string[] }> = {}, expiresInS = 600) {
    // Every token carries the local issuer's admin audience, which production requires of an
    // operator's token (the issuer checks no other audience), so a spec's token without the admin
    // role still reaches the role check (403).
    return mintIdentityToken(
      this.env.issuer,
      { principal: 'alice', tenant: 'acme', serviceId: 'agent-1', sessionId: 's-1', audience: LOCAL_ADMIN_AUDIENCE, ...claims },
      { expiresInS },
    );
  }

  async decisions(runId: string, n: number, over: Partial<DecisionInput> = {}): Promise<DecisionInput[]> {
    const identity = await this.token();
    return Array.from({ length: n }, (_, i) => ({
      decisionId: `${runId}:d${i}`,
      runId,
      causalId: `c${i}`,
      tool: 'notes.append',
      payload: { text: `note ${i}`, ref: `${runId}:${i}` },
      riskScore: 0.1,
      identity,
      ...over,
    }));
  }

  async query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  /** Final journal rows in the table for these decisions. */
  async finalRows(decisionIds: string[]) {
    return this.query<{ chain: string; journal_seq: string; decision_id: string; kind: string; effect_boundary: string; reason_code: string | null }>(
      `SELECT chain, journal_seq::text, decision_id, kind, effect_boundary, reason_code FROM journal
       WHERE final_decision_id = ANY($1) ORDER BY journal.chain, journal.journal_seq`,
      [decisionIds],
    );
  }

  /** Waits for the decision's final entry: [kind, reason code or, for a result, its effect boundary]. */
  async outcomeOf(decisionId: string): Promise<[string, string]> {
    await this.waitUntil(`${decisionId} to end`, async () => (await this.finalRows([decisionId])).length === 1);
    const [r] = await this.finalRows([decisionId]);
    return [r.kind, r.reason_code ?? r.effect_boundary];
  }

  /** A `mail.send` decision of acme's bob (the demo tool behind the consent and egress gates). */
  async mailDecision(decisionId: string, runId: string) {
    return {
      decisionId,
      runId,
      causalId: decisionId,
      tool: 'mail.send',
      payload: { to: 'bob@example.com', subject: `about ${decisionId}`, body: 'hello' },
      riskScore: 0.1,
      identity: await this.token({ principal: 'bob', tenant: 'acme' }),
    };
  }

  async waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }

  /** Produces raw bytes and returns where they landed. */
  async produceRaw(topic: string, key: string, value: string | Buffer | null): Promise<{ partition: number; offset: string }> {
    const kafka = createKafka({ brokers: this.env.brokers, clientId: 'arvis-test-raw' });
    const p = createProducer(kafka);
    await p.connect();
    try {
      const [meta] = await p.send({ topic, acks: -1, messages: [{ key, value }] });
      return { partition: meta.partition, offset: meta.baseOffset! };
    } finally {
      await p.disconnect();
    }
  }

  /** Waits until a consumer group has committed past an offset: the message was fully handled. */
  async waitForGroupPast(groupId: string, topic: string, partition: number, offset: string): Promise<void> {
    await this.withAdmin((admin) =>
      this.waitUntil(`${groupId} to commit past ${topic}[${partition}]@${offset}`, async () => {
        const p = (await committedOffsets(admin, groupId, topic)).find((x) => x.partition === partition);
        return !!p && BigInt(p.offset) > BigInt(offset);
      }),
    );
  }

  /** A consumer group's committed offset per partition of a topic ('-1' where it committed none). */
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: string }[]> {
    return this.withAdmin((admin) => committedOffsets(admin, groupId, topic));
  }

  private async withAdmin<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = createKafka({ brokers: this.env.brokers, clientId: 'arvis-test-admin' }).admin();
    await admin.connect();
    try {
      return await fn(admin);
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.journal.stop();
    await this.db.end();
  }
}

async function committedOffsets(admin: Admin, groupId: string, topic: string): Promise<{ partition: number; offset: string }[]> {
  const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return t.partitions;
}
