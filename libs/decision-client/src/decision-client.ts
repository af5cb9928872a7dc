import {
  ActionDecisionSchema,
  JOURNAL_CHECKPOINT_RECORD_TYPE,
  JournalCheckpointSchema,
  MAIN_JOURNAL_CHAIN,
  SPEC_VERSION,
  type DlqRecord,
  type JournalCheckpoint,
  type JournalEntry,
  type Topics,
} from '@arvis/contracts';
// kafkajs directly, not @arvis/kafka: this lib is also published on its own (@arvis/decision-client),
// and @arvis/kafka brings NestJS. The settings match libs/kafka: murmur2, as the services use.
import { createHash } from 'node:crypto';
import { connect as netConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, logLevel, Partitioners, type Consumer, type ISocketFactory, type KafkaConfig, type Producer } from 'kafkajs';
import { fixLoadedKafkajs, fixLoadedKafkajsRequestTimeouts } from '@arvis/kafkajs-fixes';

// Before any connection exists: kafkajs 2.2.4 from the registry runs a 1 ms timer loop on every
// connection, idle or not (ADR 0045 in the repository), and a 100 ms request-timeout interval on
// each (ADR 0059). All RequestQueues share the prototype.
fixLoadedKafkajs();
fixLoadedKafkajsRequestTimeouts();

/** SASL (PLAIN, SCRAM-SHA-256/512) and TLS, as kafkajs takes them (docs/kafka-security.md). */
export interface KafkaSecurityOptions {
  ssl?: KafkaConfig['ssl'];
  sasl?: KafkaConfig['sasl'];
}

/** The brokers alone (plaintext, no authentication), or the brokers and how to authenticate. */
export type KafkaConnection = string[] | { brokers: string[]; security?: KafkaSecurityOptions };

/** kafkajs's socket factory with Nagle off, as libs/kafka's (and the Java client's): concurrent sends go out at once. */
const noDelaySocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect) : netConnect({ host, port }, onConnect);
  socket.setKeepAlive(true, 60_000);
  socket.setNoDelay(true);
  return socket;
};

export function createKafka(connection: KafkaConnection, clientId: string): Kafka {
  const { brokers, security } = Array.isArray(connection) ? { brokers: connection, security: undefined } : connection;
  return new Kafka({
    brokers,
    clientId,
    ...security,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    connectionTimeout: 3000,
    socketFactory: noDelaySocketFactory,
  });
}

function createProducer(kafka: Kafka): Producer {
  return kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
}

/** Whose decisions a watcher waits for: the tenant and principal of the token they were sent with. */
export interface DecisionSender {
  tenant: string;
  principal: string;
}

const UNAUTHENTICATED = '__unauthenticated__';
const sentBy = (e: JournalEntry, s: DecisionSender) => e.tenant === s.tenant && (e.principal === s.principal || e.principal === UNAUTHENTICATED);

export interface DecisionInput {
  decisionId: string;
  runId: string;
  causalId: string;
  tool: string;
  payload: Record<string, unknown>;
  riskScore: number;
  identity: string;
  processId?: string;
  confirmationId?: string;
}

/** A decision the published schema refuses: nothing of the batch was produced. */
export class InvalidDecisionError extends Error {
  constructor(readonly problems: { decisionId: unknown; issues: string[] }[]) {
    super(`decisions refused by the ActionDecision schema, none sent: ${problems.map((p) => `${String(p.decisionId)}: ${p.issues.join('; ')}`).join(' | ')}`);
    this.name = 'InvalidDecisionError';
  }
}

/**
 * The decision as it goes on the wire, checked against the ActionDecision contract: the zod schema
 * that schemas/action-decision.schema.json is generated from (`npm run schemas`; a spec keeps the
 * two equal). Problems, or none.
 */
export function decisionProblems(message: unknown): string[] {
  const parsed = ActionDecisionSchema.safeParse(message);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`);
}

/** Produces decisions (or raw bytes) onto the decisions topic, keyed by runId. */
export class DecisionClient {
  private readonly kafka: Kafka;
  private producer?: Producer;

  constructor(connection: KafkaConnection, private readonly topics: Topics, clientId = 'arvis-decision-client') {
    this.kafka = createKafka(connection, clientId);
  }

  private async connected(): Promise<Producer> {
    if (!this.producer) {
      this.producer = createProducer(this.kafka);
      await this.producer.connect();
    }
    return this.producer;
  }

  /**
   * Validates every decision against the published schema first (InvalidDecisionError, nothing
   * sent, when one fails), then produces them keyed by runId. `headers` go with every message (a
   * W3C traceparent, for one). `sendRaw` sends bytes unchecked.
   */
  async send(decisions: DecisionInput[], headers?: Record<string, string>): Promise<void> {
    const messages = decisions.map((d) => ({ specVersion: SPEC_VERSION, ...d }));
    const problems = messages.map((m) => ({ decisionId: m.decisionId, issues: decisionProblems(m) })).filter((p) => p.issues.length > 0);
    if (problems.length > 0) throw new InvalidDecisionError(problems);
    await this.sendRaw(
      this.topics.decisions,
      messages.map((m) => ({ key: m.runId, value: JSON.stringify(m), headers })),
    );
  }

  async sendRaw(topic: string, messages: { key: string; value: string | Buffer | null; headers?: Record<string, string> }[]): Promise<void> {
    const p = await this.connected();
    for (let i = 0; i < messages.length; i += 1000) {
      await p.send({ topic, acks: -1, messages: messages.slice(i, i + 1000) });
    }
  }

  async close(): Promise<void> {
    await this.producer?.disconnect();
  }
}

/**
 * What names a journal entry on the topic: its chain and its journalSeq, `<chain>@<seq>`. Seqs
 * are gap-free within a chain, so two chains both have a seq 1; an entry without `chain` (written
 * before the field existed) is on "main".
 */
export function journalEntryKey(entry: { chain?: unknown; journalSeq: string }): string {
  return `${typeof entry.chain === 'string' ? entry.chain : MAIN_JOURNAL_CHAIN}@${entry.journalSeq}`;
}

/**
 * Reads the journal and dead-letter topics (decisions and intents) from the beginning in a throwaway consumer group,
 * deduplicating journal entries by (chain, journalSeq) (the topic is an at-least-once copy, and
 * each chain numbers its own entries from 1: contracts version 8).
 */
export class JournalWatcher {
  /** Each entry once, keyed by `journalEntryKey` (`<chain>@<journalSeq>`). */
  readonly entries = new Map<string, JournalEntry>();
  readonly deadLetters: DlqRecord[] = [];
  /** Signed checkpoints seen on the journal topic (docs/journal-topic.md), copies included. */
  readonly checkpoints: JournalCheckpoint[] = [];
  duplicatesSeen = 0;
  /** Journal topic messages that are neither an entry nor a checkpoint: skipped, never fatal. */
  unreadable = 0;
  private consumer?: Consumer;
  private readonly kafka: Kafka;

  constructor(connection: KafkaConnection, private readonly topics: Topics, private readonly onEntry?: (e: JournalEntry) => void) {
    this.kafka = createKafka(connection, 'arvis-journal-watcher');
  }

  /** Its throwaway consumer group: read from the beginning at every start, so it commits no offsets. */
  readonly groupId = `arvis-journal-watcher-${process.pid}-${Date.now()}`;

  async start(): Promise<void> {
    this.consumer = this.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: 10000,
      allowAutoTopicCreation: false,
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.topics.journal, this.topics.decisionsDlq, this.topics.intentsDlq], fromBeginning: true });
    let resolveJoined!: () => void;
    const joined = new Promise<void>((r) => (resolveJoined = r));
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => resolveJoined());
    await this.consumer.run({
      // No start ever reads this group's offsets: committing them (after every fetched batch, by
      // default) was one OffsetCommit request, and one write to the broker's offsets topic, per batch.
      autoCommit: false,
      eachMessage: async ({ topic, message }) => {
        if (!message.value) return;
        if (topic === this.topics.journal) {
          this.onJournalRecord(message.value);
        } else {
          this.deadLetters.push(JSON.parse(message.value.toString('utf8')) as DlqRecord);
        }
      },
    });
    await joined;
  }

  /** A checkpoint is kept apart (it has no journalSeq); anything unreadable is counted and skipped. */
  private onJournalRecord(value: Buffer): void {
    let body: unknown;
    try {
      body = JSON.parse(value.toString('utf8'));
    } catch {
      this.unreadable++;
      return;
    }
    const record = body as { recordType?: unknown; journalSeq?: unknown };
    if (record?.recordType === JOURNAL_CHECKPOINT_RECORD_TYPE) {
      const checkpoint = JournalCheckpointSchema.safeParse(record);
      if (checkpoint.success) this.checkpoints.push(checkpoint.data);
      else this.unreadable++;
      return;
    }
    if (record?.recordType !== undefined || typeof record?.journalSeq !== 'string') {
      this.unreadable++;
      return;
    }
    const entry = body as JournalEntry;
    const key = journalEntryKey(entry);
    if (this.entries.has(key)) {
      this.duplicatesSeen++;
      return;
    }
    this.entries.set(key, entry);
    this.onEntry?.(entry);
  }

  /**
   * Final entries of these decisions. Ids are unique only within a tenant (ADR 0061 in the
   * repository): pass `sender`, the tenant and principal of the token the decisions were sent
   * with, so another tenant's decision with the same id is not taken for yours. A refusal recorded
   * without a current identity names the tenant and the principal `__unauthenticated__`.
   */
  finalEntriesFor(decisionIds: Iterable<string>, sender?: DecisionSender): Map<string, JournalEntry[]> {
    const wanted = new Set(decisionIds);
    const out = new Map<string, JournalEntry[]>();
    for (const e of this.entries.values()) {
      if (!wanted.has(e.decisionId)) continue;
      if (sender && !sentBy(e, sender)) continue;
      if (!['tool_result', 'authorization_refusal', 'admission_refusal'].includes(e.kind)) continue;
      out.set(e.decisionId, [...(out.get(e.decisionId) ?? []), e]);
    }
    return out;
  }

  /**
   * Dead letters that name these decisions: a decision whose identity token did not verify ends
   * here (`identity_invalid`), not in the journal, because it is attributable to no one. Pass
   * `tokens`, the tokens they were sent with, to take only records of those (by the token's
   * SHA-256 the record carries), not another sender's decision with the same id.
   */
  deadLettersFor(decisionIds: Iterable<string>, tokens?: Iterable<string>): Map<string, DlqRecord> {
    const wanted = new Set(decisionIds);
    const hashes = tokens && new Set([...tokens].map((t) => createHash('sha256').update(t, 'utf8').digest('hex')));
    const out = new Map<string, DlqRecord>();
    for (const d of this.deadLetters) {
      if (d.decisionId === undefined || !wanted.has(d.decisionId)) continue;
      if (hashes && (d.identitySha256 === undefined || !hashes.has(d.identitySha256))) continue;
      out.set(d.decisionId, d);
    }
    return out;
  }

  /** Polls until `done` holds or the deadline passes; returns whether it held. */
  async waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (done()) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return done();
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
