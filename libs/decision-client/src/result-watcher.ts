import { FINAL_JOURNAL_KINDS, JOURNAL_CHECKPOINT_RECORD_TYPE, type JournalEntry, type JournalKind } from '@arvis/contracts';
import type { Consumer, Kafka } from 'kafkajs';
import { createKafka, type DecisionSender, type KafkaConnection } from './decision-client';

const UNAUTHENTICATED = '__unauthenticated__';

/**
 * The sender's own final entry: its tenant and its principal (or, for a refusal recorded after
 * the identity no longer verified, the tenant and `__unauthenticated__`), as well as the id.
 */
export function isSendersFinal(e: JournalEntry, sender: DecisionSender): boolean {
  return FINAL_JOURNAL_KINDS.has(e.kind as JournalKind) && e.tenant === sender.tenant && (e.principal === sender.principal || e.principal === UNAUTHENTICATED);
}

export interface ResultWatcherOptions {
  /** Final entries of the sender kept for a `waitFor` asked after they were read; the oldest go first. */
  maxKept?: number;
  clientId?: string;
}

/**
 * Waits for the final entries of one sender's decisions on a results topic: the journal topic, or
 * the tenant's own result topic (docs/result-topics.md in the repository). `start()` records the
 * topic's end offsets and reads from exactly there, so call it before sending: nothing older is
 * read, and nothing produced after it is missed. Memory is bounded: only the sender's final
 * entries are kept (at most `maxKept`, by decisionId, first copy wins: the topic is at least once);
 * every other record is counted and dropped.
 */
export class ResultWatcher {
  private readonly kafka: Kafka;
  private consumer?: Consumer;
  private readonly kept = new Map<string, JournalEntry>();
  private readonly waiting = new Map<string, Set<(e: JournalEntry) => void>>();
  private readonly maxKept: number;
  /** Records read, kept (the sender's finals), skipped (anything else), unreadable; dropped: kept ones evicted. */
  readonly stats = { read: 0, kept: 0, skipped: 0, unreadable: 0, dropped: 0 };
  /** The offsets it started from, per partition. */
  startOffsets: { partition: number; offset: string }[] = [];

  constructor(
    connection: KafkaConnection,
    readonly topic: string,
    readonly sender: DecisionSender,
    opts: ResultWatcherOptions = {},
  ) {
    this.kafka = createKafka(connection, opts.clientId ?? 'arvis-result-watcher');
    this.maxKept = opts.maxKept ?? 10_000;
  }

  /** Records the end of every partition, then reads from there. Resolves once it reads. */
  async start(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      this.startOffsets = (await admin.fetchTopicOffsets(this.topic)).map((p) => ({ partition: p.partition, offset: p.high }));
    } finally {
      await admin.disconnect();
    }
    this.consumer = this.kafka.consumer({
      groupId: `arvis-result-watcher-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      sessionTimeout: 10000,
      allowAutoTopicCreation: false,
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.topic] });
    const running = this.consumer.run({ autoCommit: false, eachMessage: async ({ message }) => this.onRecord(message.value) });
    // Before the group is joined (run creates it synchronously): the first fetch of each partition
    // starts at the recorded end, not at "latest" as of the join, which would miss what was sent between.
    for (const p of this.startOffsets) this.consumer.seek({ topic: this.topic, partition: p.partition, offset: p.offset });
    await running;
  }

  private onRecord(value: Buffer | null): void {
    this.stats.read++;
    if (!value) return void this.stats.skipped++;
    let body: { recordType?: unknown; journalSeq?: unknown; decisionId?: unknown };
    try {
      body = JSON.parse(value.toString('utf8')) as typeof body;
    } catch {
      return void this.stats.unreadable++;
    }
    if (body?.recordType === JOURNAL_CHECKPOINT_RECORD_TYPE || typeof body?.journalSeq !== 'string' || typeof body.decisionId !== 'string') {
      return void (body?.recordType === JOURNAL_CHECKPOINT_RECORD_TYPE ? this.stats.skipped++ : this.stats.unreadable++);
    }
    const entry = body as unknown as JournalEntry;
    if (!isSendersFinal(entry, this.sender) || this.kept.has(entry.decisionId)) return void this.stats.skipped++;
    this.stats.kept++;
    this.kept.set(entry.decisionId, entry);
    if (this.kept.size > this.maxKept) {
      this.kept.delete(this.kept.keys().next().value!);
      this.stats.dropped++;
    }
    const waiters = this.waiting.get(entry.decisionId);
    if (waiters) {
      this.waiting.delete(entry.decisionId);
      for (const w of waiters) w(entry);
    }
  }

  /** The sender's final entry of this decision, if read (and still kept). */
  result(decisionId: string): JournalEntry | undefined {
    return this.kept.get(decisionId);
  }

  /** Resolves with the final entry once read, or undefined after `timeoutMs`. */
  waitFor(decisionId: string, timeoutMs: number): Promise<JournalEntry | undefined> {
    const now = this.kept.get(decisionId);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const set = this.waiting.get(decisionId) ?? new Set();
      const done = (e: JournalEntry | undefined) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(decisionId) === set) this.waiting.delete(decisionId);
        resolve(e);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      set.add(done);
      this.waiting.set(decisionId, set);
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

/** What the results API answered (ADR 0072): the final entry, pending, or not found (also: another's). */
export type ResultAnswer = { status: 'final'; entry: JournalEntry } | { status: 'pending' } | { status: 'not_found' };

/** The API refused the request itself (401, 400, 429, …): the status and the error body's `error`. */
export class ResultApiError extends Error {
  constructor(readonly status: number, readonly error: string | undefined) {
    super(`results API answered ${status}${error ? ` ${error}` : ''}`);
    this.name = 'ResultApiError';
  }
}

/**
 * Asks the authorizer's results API (`GET /decisions/{id}`) with the token the decision was sent
 * with; `waitS` long-polls (the authorizer caps it). `apiUrl`: e.g. `http://authorizer:3001`.
 */
export async function fetchResult(apiUrl: string, token: string, decisionId: string, opts: { waitS?: number } = {}): Promise<ResultAnswer> {
  const query = opts.waitS ? `?waitS=${Math.max(0, Math.floor(opts.waitS))}` : '';
  const res = await fetch(`${apiUrl.replace(/\/$/, '')}/decisions/${encodeURIComponent(decisionId)}${query}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json().catch(() => ({}))) as { entry?: JournalEntry; error?: string };
  if (res.status === 200 && body.entry) return { status: 'final', entry: body.entry };
  if (res.status === 202) return { status: 'pending' };
  if (res.status === 404) return { status: 'not_found' };
  throw new ResultApiError(res.status, body.error);
}

/**
 * Long-polls the results API until the final entry, or until `timeoutS` passed (then the last
 * answer). A not found answered at once (another principal's decision) ends it; one answered
 * after the authorizer's wait (the decision not read yet) asks again.
 */
export async function awaitResult(apiUrl: string, token: string, decisionId: string, timeoutS: number): Promise<ResultAnswer> {
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    const asked = Date.now();
    const answer = await fetchResult(apiUrl, token, decisionId, { waitS: Math.max(left, 0) });
    if (answer.status === 'final' || left <= 0 || Date.now() >= deadline) return answer;
    if (answer.status === 'not_found' && Date.now() - asked < 1000) return answer;
  }
}
