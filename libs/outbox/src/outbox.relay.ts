import { Logger } from '@nestjs/common';
import { Client, Pool, type PoolClient, type QueryResult } from 'pg';
import type { RelaySettings } from '@arvis/config';
import { sendRefusalOf, type KafkaPublisher, type OutboundMessage, type SendRefusal } from '@arvis/kafka';
import { handlePoolErrors, pipelined, preparedQuery, SERVICE_SESSION_OPTIONS, untilDatabaseAnswers } from '@arvis/persistence';
import { endSpan, SpanKind, Tracing, withTraceHeaders, type Span, type TraceCarrier } from '@arvis/tracing';
import { planBatch, type CandidateRow } from './plan-batch';
import { beginLockAndCountStatements, MAX_RELAY_SHARDS } from './relay-shard-count';
import { NO_RELAY_HOOKS, type RelayHooks } from './relay-hooks';
import { resultCopiesTotal, ResultRouter, type ResultCopyOutcome } from './result-copies';

/** How often a relay with result topics looks which of them the broker has (ADR 0073). */
const RESULT_TOPICS_CHECK_MS = 30_000;
/** Tenants named in a "no result topic" warning per process; the counter goes on counting past them. */
const WARNED_TENANTS_MAX = 100;

export interface RelayStats {
  published: number;
  batches: number;
  skippedWhileAnotherRelayActive: number;
  failedBatches: number;
  pruned: number;
  /** Rows this relay set aside because no broker within our limits would take them. */
  quarantined: number;
  /** Final entries' copies sent to their tenant's result topic, and those with none to go to (ADR 0073). */
  resultCopies: number;
  resultCopiesUnrouted: number;
}

interface OutboxRecord {
  seq: string;
  topic: string;
  message_key: string;
  payload: string;
  headers: Record<string, string> | null;
  trace_context: TraceCarrier | null;
  result_tenant: string | null;
}

/** A candidate as CANDIDATES returns it: the record's columns are null where it was not loaded. */
type CandidateRecord = CandidateRow & { [K in Exclude<keyof OutboxRecord, 'seq'>]: OutboxRecord[K] | null } & { loaded: boolean };

/**
 * The batch's candidates in seq order with their sizes on the wire, and the columns of the rows a
 * send can take loaded in the same statement: those within the message limit whose running total
 * of such rows stays within the batch budget, or the first of them (sent alone if need be). That
 * is every row planBatch can pick, so the send needs no second read; a row above the message
 * limit, or past the budget, is not read beyond its size (octet_length reads a TOASTed value's
 * size without fetching it).
 */
const candidatesOf = (shardFilter: string) => `
SELECT seq::text, bytes, loaded,
       CASE WHEN loaded THEN topic END AS topic, CASE WHEN loaded THEN message_key END AS message_key,
       CASE WHEN loaded THEN payload END AS payload, CASE WHEN loaded THEN headers END AS headers,
       CASE WHEN loaded THEN trace_context END AS trace_context, CASE WHEN loaded THEN result_tenant END AS result_tenant
FROM (
  SELECT c.*, c.bytes <= $2 AND (c.running <= $3 OR c.running = c.bytes) AS loaded
  FROM (
    SELECT s.*, sum(CASE WHEN s.bytes <= $2 THEN s.bytes ELSE 0 END) OVER (ORDER BY s.seq) AS running
    FROM (
      SELECT seq, topic, message_key, payload, headers, trace_context, result_tenant,
             (octet_length(payload) + octet_length(message_key) + coalesce(octet_length(headers::text), 0)
              + coalesce(octet_length(trace_context::text), 0))::int AS bytes
      FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL ${shardFilter}ORDER BY outbox.seq LIMIT $1
    ) s
  ) c
) w
ORDER BY w.seq`;

const CANDIDATES = candidatesOf('');
/**
 * CANDIDATES among the rows the head's read gave one shard ($4), looked up by primary key: a
 * shard's batch never walks the other shards' rows. With one shard, CANDIDATES as before sharding.
 */
const SHARD_CANDIDATES = candidatesOf('AND seq = ANY($4::bigint[]) ');
/**
 * The head of the queue ($2 rows), each with its shard: its message key's hash modulo the shard
 * count $1 (ADR 0089). Every row of a key is in one shard, and every message of a run has the
 * run's key, so one lock holder publishes a run. Read before any lock, once per wake-up for every
 * shard, so that a wake-up visits only shards with rows. `outbox.seq`: a bare `seq` would order by
 * the text column of the same name.
 */
const HEAD_SHARDS = `SELECT seq::text, (hashtext(message_key) & 2147483647) % $1::int AS shard
FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL ORDER BY outbox.seq LIMIT $2`;

/** A wake-up's work: the shards to try in order, each with the head's rows of it (undefined: one shard, no head read). */
interface ShardVisit {
  shard: number;
  seqs?: string[];
}

/** A planned row's record; CANDIDATES loads every row planBatch can pick, so a gap is a fault. */
function loadedRecord(r: CandidateRecord): OutboxRecord {
  if (!r.loaded || r.topic === null || r.message_key === null || r.payload === null) throw new Error(`outbox row ${r.seq} was planned for the send but not loaded`);
  return { seq: r.seq, topic: r.topic, message_key: r.message_key, payload: r.payload, headers: r.headers, trace_context: r.trace_context, result_tenant: r.result_tenant };
}

interface BatchOutcome {
  published: number;
  quarantined: number;
  /** Rows were left behind (count or byte limit, quarantines): go on without waiting. */
  more: boolean;
  /** Another relay held the lock. */
  skipped?: boolean;
  /** The database's shard count was not this relay's: it adopted it, and the wake-up starts over. */
  recounted?: boolean;
}

const IDLE: BatchOutcome = { published: 0, quarantined: 0, more: false };
const SKIPPED: BatchOutcome = { ...IDLE, skipped: true };
const RECOUNTED: BatchOutcome = { ...IDLE, more: true, recounted: true };

function groupByTopic(rows: OutboxRecord[], headers: (Record<string, string> | undefined)[]): { byTopic: Map<string, OutboundMessage[]>; messages: OutboundMessage[] } {
  const byTopic = new Map<string, OutboundMessage[]>();
  const messages: OutboundMessage[] = [];
  for (const [i, r] of rows.entries()) {
    const list = byTopic.get(r.topic) ?? [];
    const message = { key: r.message_key, value: r.payload, headers: headers[i] };
    list.push(message);
    messages.push(message);
    byTopic.set(r.topic, list);
  }
  return { byTopic, messages };
}

// One relay publishes a shard at a time (transaction-scoped advisory lock), so one run's messages
// are never reordered by two relays racing; if it dies its transaction aborts and another takes
// over. The keys and the count are in relay-shard-count.ts (ADR 0089).
const NOTIFY_CHANNEL = 'arvis_outbox';
/** The DELETE of a batch the broker acknowledged. */
const DELETE_SENT_TEXT = 'DELETE FROM outbox WHERE seq = ANY($1::bigint[]) AND published_at IS NULL AND quarantined_at IS NULL';
/** Up to this many rows, the DELETE and the COMMIT go as one simple query (see deleteAndCommit). */
const ONE_TRIP_DELETE_MAX_ROWS = 8;

/**
 * Publishes outbox rows at least once. Rows are selected by what is still in the table, never by
 * "seq greater than the last published" (sequence order is not commit order), and deleted, in one
 * statement per batch, only after the broker acknowledged the batch's one send (ADR 0048): a row
 * is never updated on the way, and the table holds only what is still to send or quarantined.
 * Woken by LISTEN/NOTIFY; the poll is a fallback.
 * Uses `pg` directly: LISTEN and a lock held across the broker round trip are outside Prisma.
 */
export class OutboxRelay {
  private readonly log = new Logger(OutboxRelay.name);
  private readonly pool: Pool;
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  /**
   * The fallback poll's current period: RELAY_POLL_MS, doubled after each period in which nothing
   * needed it (no rows, no failure, no standby, the listener up) up to IDLE_POLL_MAX_MS, and back
   * to RELAY_POLL_MS at once when something does (ADR 0059). NOTIFY is the wake-up; the poll only
   * covers what NOTIFY cannot: a listener being reconnected, a batch to retry, a relay that died
   * while we stood by.
   */
  private pollDelay: number;
  private pollAt = 0;
  /** Since the last poll: something the poll is there for happened (rows, a failure, a standby). */
  private pollNeeded = false;
  private readonly publishedListeners: (() => void)[] = [];
  private readonly commitListeners: (() => void)[] = [];
  private pruneTimer?: NodeJS.Timeout;
  private running = false;
  private draining?: Promise<void>;
  private wakeAgain = false;
  /**
   * Shards whose lock another relay held at our last try: it is publishing them, and it hears the
   * same notifications. Until our next poll we leave them to it, instead of opening a transaction
   * per commit only to find the lock taken again; the poll still takes over from a relay that died.
   */
  private readonly standingBy = new Set<number>();
  /**
   * Shard count: RELAY_SHARDS until a batch reads the database's (store_identity.relay_shards),
   * which it then keeps (ADR 0089); 1 is the unsharded relay.
   */
  private shards: number;
  /** Where this relay starts its walk over the shards: relays that start apart publish apart. */
  private firstShard: number;
  readonly stats: RelayStats = { published: 0, batches: 0, skippedWhileAnotherRelayActive: 0, failedBatches: 0, pruned: 0, quarantined: 0, resultCopies: 0, resultCopiesUnrouted: 0 };
  private readonly results: ResultRouter;
  private resultTopicsTimer?: NodeJS.Timeout;
  private readonly warnedTenants = new Set<string>();
  /** Per shard, after a multi-row send refused for good: that shard's rows up to this seq go one at a time. */
  private readonly isolateThrough = new Map<number, bigint>();

  constructor(
    private readonly databaseUrl: string,
    private readonly publisher: KafkaPublisher,
    private readonly settings: RelaySettings,
    private readonly tracing: Tracing = Tracing.disabled(),
    private readonly hooks: RelayHooks = NO_RELAY_HOOKS,
  ) {
    // The lease: a relay paused or hung while it holds the lock (idle in its transaction) loses
    // its session, and with it the lock, after leaseMs; another relay then publishes the batch
    // again (ADR 0067). Set per connection, so it costs no statement.
    this.results = new ResultRouter(settings.resultTopics ?? {});
    this.pollDelay = settings.pollMs;
    this.shards = settings.shards ?? 1;
    this.firstShard = Math.floor(Math.random() * this.shards);
    this.pool = handlePoolErrors(
      // min 1: the one connection (and its prepared statements) stays open through an idle
      // poll period longer than pg-pool's 10 s idle timeout (ADR 0059). The outbox is a queue, empty
      // whenever its batch read is likely to be planned: sequential scans off (ADR 0082) keep that
      // read on the primary key's order however long the backlog grows.
      new Pool({ connectionString: databaseUrl, max: 1, min: 1, idle_in_transaction_session_timeout: settings.leaseMs, options: SERVICE_SESSION_OPTIONS }),
      'relay',
      (m) => this.log.warn(m),
    );
  }

  async start(): Promise<void> {
    this.running = true;
    // The broker may be down at start-up: publishing connects (and reconnects) on demand.
    await this.publisher.connect().catch((e: Error) => this.log.warn({ msg: 'broker not reachable yet', error: e.message }));
    // Started while PostgreSQL restarts: wait for it rather than fail start-up.
    await untilDatabaseAnswers(
      () => this.listen(),
      (attempt, e) => this.log.warn({ msg: 'database not answering at start-up, waiting', what: 'relay LISTEN', attempt, error: e.message }),
    );
    if (this.results.enabled) {
      await this.checkResultTopics();
      this.resultTopicsTimer = setInterval(() => void this.checkResultTopics(), RESULT_TOPICS_CHECK_MS);
    }
    this.schedulePoll(this.settings.pollMs);
    this.pruneTimer = setInterval(() => void this.prune().catch((e: Error) => this.log.warn({ msg: 'prune failed', error: e.message })), this.settings.pruneIntervalMs);
    this.wake();
  }

  private schedulePoll(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.pollDelay = delayMs;
    this.pollAt = Date.now() + delayMs;
    this.timer = setTimeout(() => this.poll(), delayMs);
  }

  private poll(): void {
    if (!this.running) return;
    const quiet = !this.pollNeeded && this.listener !== undefined && this.standingBy.size === 0;
    this.pollNeeded = false;
    this.schedulePoll(quiet ? Math.min(this.pollDelay * 2, Math.max(this.settings.idlePollMaxMs, this.settings.pollMs)) : this.settings.pollMs);
    this.wake(true);
  }

  /** Something the poll covers happened: back to RELAY_POLL_MS if the poll had slowed down. */
  private needPoll(): void {
    this.pollNeeded = true;
    if (!this.running || this.pollDelay <= this.settings.pollMs) return;
    // A poll due sooner than RELAY_POLL_MS stays; it then arms the next one at RELAY_POLL_MS.
    if (this.pollAt > Date.now() + this.settings.pollMs) this.schedulePoll(this.settings.pollMs);
    else this.pollDelay = this.settings.pollMs;
  }

  /** The fallback poll's current period (ADR 0059): RELAY_POLL_MS while it is needed, up to IDLE_POLL_MAX_MS idle. */
  get pollPeriodMs(): number {
    return this.pollDelay;
  }

  /**
   * Called at each NOTIFY heard: a commit that wrote the outbox, in any process (every journal
   * entry does), and once more each time the listener is (re)connected, for what was committed
   * while it was not. The idle back-off of other pollers wakes on it (ADR 0059).
   */
  onOutboxCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** The LISTEN connection is up: a commit now reaches onOutboxCommit's listeners. */
  get listening(): boolean {
    return this.running && this.listener !== undefined;
  }

  /** Called after each batch this relay published (the journal checkpointer wakes on it). */
  onPublished(listener: () => void): void {
    this.publishedListeners.push(listener);
  }

  private async listen(): Promise<void> {
    // TCP keepalive: a listener whose server vanished without a reset is found by the kernel,
    // with no timer here; until then the bounded fallback poll covers it.
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('notification', () => {
      this.wake();
      for (const listener of this.commitListeners) listener();
    });
    let lost = false;
    client.on('error', (e) => {
      if (lost) return;
      lost = true;
      // The poll keeps us going; reconnect the listener in the background.
      this.log.warn({ msg: 'LISTEN connection lost', error: e.message });
      if (this.listener === client) this.listener = undefined;
      this.needPoll();
      this.relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (e) {
      lost = true; // the caller retries; the 'error' event must not start a second retry
      await client.end().catch(() => undefined);
      throw e;
    }
    this.listener = client;
    // Rows committed while we were not listening sent no NOTIFY we heard.
    this.wake();
    for (const listener of this.commitListeners) listener();
  }

  /**
   * Which result topics the broker has: a copy for a missing one is counted and not sent, since a
   * send to a topic the broker lacks fails, and would hold back every row behind it (ADR 0073).
   * Not knowing yet (the broker unreachable at start) sends to every configured topic.
   */
  private async checkResultTopics(): Promise<void> {
    try {
      const existing = await this.publisher.existingTopics(this.results.wanted);
      const missing = this.results.wanted.filter((t) => !existing.has(t));
      if (missing.length > 0) this.log.warn({ msg: 'result topics missing on the broker; their copies are not sent', topics: missing.join(',') });
      this.results.existing = existing;
    } catch (e) {
      this.log.warn({ msg: 'could not list the result topics; will look again', error: (e as Error).message });
    }
  }

  /** Retries LISTEN until it works again (the database may be down for a while). */
  private relisten(): void {
    if (!this.running) return;
    setTimeout(() => {
      if (!this.running || this.listener) return;
      this.listen().catch((e: Error) => {
        this.log.warn({ msg: 'LISTEN reconnect failed, will retry', error: e.message });
        this.relisten();
      });
    }, 1000).unref();
  }

  /** Coalesces wake-ups: at most one drain at a time, and one more if woken during it. */
  wake(byPoll = false): void {
    if (!this.running) return;
    if (byPoll) this.standingBy.clear();
    else if (this.standingBy.size === this.shards) return;
    if (this.draining) {
      this.wakeAgain = true;
      return;
    }
    this.draining = this.drain()
      .catch((e: Error) => {
        this.needPoll();
        this.stats.failedBatches++;
        this.log.warn({ msg: 'relay batch failed, will retry', error: e.message });
      })
      .finally(() => {
        this.draining = undefined;
        if (this.wakeAgain && this.running) {
          this.wakeAgain = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    while (this.running) {
      const { visits, headFull } = await this.shardsToVisit();
      let again = headFull;
      for (const { shard, seqs } of visits) {
        if (!this.running) return;
        const { more, skipped, published, quarantined, recounted } = await this.publishBatch(shard, seqs);
        if (recounted) {
          again = true;
          break;
        }
        if (skipped) this.standingBy.add(shard);
        if (skipped || more || published > 0 || quarantined > 0) this.needPoll();
        if (published > 0) for (const listener of this.publishedListeners) listener();
        again ||= more;
      }
      if (!again) return;
    }
  }

  /**
   * The shards this wake-up tries, in this relay's order, less those it stands by for. One shard
   * needs no look; with several, one read of the head of the queue finds those with rows and
   * which rows, so a commit costs a quiet relay that read and one batch, not a transaction per
   * shard. `headFull`: the head read found as many rows as it asked for, so look again after.
   */
  private async shardsToVisit(): Promise<{ visits: ShardVisit[]; headFull: boolean }> {
    if (this.shards === 1) return { visits: this.standingBy.has(0) ? [] : [{ shard: 0 }], headFull: false };
    const limit = this.settings.batchSize * this.shards;
    const { rows } = await this.pool.query<{ seq: string; shard: number }>(preparedQuery(HEAD_SHARDS, [this.shards, limit]));
    const seqsOf = new Map<number, string[]>();
    for (const r of rows) {
      if (this.standingBy.has(r.shard)) continue;
      const seqs = seqsOf.get(r.shard);
      if (seqs) seqs.push(r.seq);
      else seqsOf.set(r.shard, [r.seq]);
    }
    const visits: ShardVisit[] = [];
    for (let i = 0; i < this.shards; i++) {
      const shard = (this.firstShard + i) % this.shards;
      const seqs = seqsOf.get(shard);
      if (seqs) visits.push({ shard, seqs });
    }
    return { visits, headFull: rows.length === limit && visits.length > 0 };
  }

  /** The shard count this relay publishes with: the database's, once a batch has read it. */
  get shardCount(): number {
    return this.shards;
  }

  /**
   * One wake-up's batches (again, once, if the database's shard count was not this relay's).
   * Returns how many rows it published (0 when idle or another relay holds the locks).
   */
  async publishOneBatch(): Promise<number> {
    let published = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      let recounted = false;
      for (const { shard, seqs } of (await this.shardsToVisit()).visits) {
        const outcome = await this.publishBatch(shard, seqs);
        published += outcome.published;
        if ((recounted = outcome.recounted === true)) break;
      }
      if (!recounted) break;
    }
    return published;
  }

  /**
   * The database's shard count replaces this relay's (ADR 0089): said once per change, as a
   * warning when it differs from RELAY_SHARDS (the operator set one and the database holds
   * another). Per-shard state of the old count means other rows now: it is dropped.
   */
  private adoptShardCount(count: number | undefined): void {
    if (count === undefined || !Number.isInteger(count) || count < 1 || count > MAX_RELAY_SHARDS) {
      throw new Error(`store_identity.relay_shards is ${String(count)}, not 1..${MAX_RELAY_SHARDS}: run the migrations`);
    }
    const line = { msg: 'relay shard count taken from the database', from: this.shards, to: count, configured: this.settings.shards ?? 1 };
    if (count === line.configured) this.log.log(line);
    else this.log.warn({ ...line, hint: 'RELAY_SHARDS differs from the database\'s count, which every relay of it uses; set RELAY_SHARDS to it, or change it with npm run migrate' });
    this.shards = count;
    this.firstShard = Math.floor(Math.random() * count);
    this.standingBy.clear();
    this.isolateThrough.clear();
  }

  /** One transaction: lock the shard, pick its rows within the byte budget, quarantine, send, delete. */
  private async publishBatch(shard: number, seqs?: string[]): Promise<BatchOutcome> {
    const client: PoolClient = await this.pool.connect();
    // A checked-out client has no pool listener: the connection can be cut while we wait on the
    // broker. Note it, fail this batch at its next statement, and drop the client on release.
    let lost: Error | undefined;
    const onLost = (e: Error) => (lost = e);
    client.on('error', onLost);
    try {
      // BEGIN, the lock's try, the database's shard count and the batch's read in one round trip
      // (the relay runs this at every commit anyone makes): the read is a statement of its own,
      // after the lock's, so its snapshot sees all the last holder committed. Its rows are used only
      // if the lock was taken and the count is this relay's.
      const [, lock, count, candidates] = (await pipelined(client, beginLockAndCountStatements(shard), this.candidatesQuery(seqs))) as [
        QueryResult,
        QueryResult<{ ok: boolean }>,
        QueryResult<{ relay_shards: number }>,
        QueryResult<CandidateRecord>,
      ];
      // Rows are chosen by this relay's count; under another, this shard is other rows (which
      // another relay may hold under another lock). Nothing is sent: adopt it and start over.
      // Read whether or not the lock was free: a relay standing by learns the count too.
      if (count.rows[0]?.relay_shards !== this.shards) {
        await client.query('ROLLBACK');
        this.adoptShardCount(count.rows[0]?.relay_shards);
        return RECOUNTED;
      }
      if (!lock.rows[0].ok) {
        await client.query('ROLLBACK');
        this.stats.skippedWhileAnotherRelayActive++;
        return SKIPPED;
      }
      const { sent, ...outcome } = await this.publishLocked(client, shard, candidates);
      if (sent.length === 0) await client.query('COMMIT');
      else await this.deleteAndCommit(client, sent);
      this.stats.published += outcome.published;
      this.stats.quarantined += outcome.quarantined;
      if (outcome.published > 0) this.stats.batches++;
      return outcome;
    } catch (e) {
      await client.query('ROLLBACK').catch((r: Error) => (lost ??= r));
      throw e;
    } finally {
      client.off('error', onLost);
      client.release(lost);
    }
  }

  /** The batch's read: the head of the queue, or of the rows the head's read gave this shard. */
  private candidatesQuery(seqs: string[] | undefined) {
    const params = [this.settings.batchSize, this.settings.maxMessageBytes, this.settings.maxBatchBytes];
    return seqs === undefined ? preparedQuery(CANDIDATES, params) : preparedQuery(SHARD_CANDIDATES, [...params, seqs]);
  }

  private async publishLocked(client: PoolClient, shard: number, candidates: QueryResult<CandidateRecord>): Promise<BatchOutcome & { sent: string[] }> {
    const limits = { maxBatchBytes: this.settings.maxBatchBytes, maxMessageBytes: this.settings.maxMessageBytes };
    const plan = planBatch(candidates.rows, { ...limits, maxRows: this.isolating(shard, candidates.rows[0]?.seq) ? 1 : Infinity });
    let quarantined = 0;
    for (const row of plan.tooLarge) {
      quarantined += await this.quarantine(client, row.seq, `too_large: ${row.bytes} bytes > RELAY_MAX_MESSAGE_BYTES ${this.settings.maxMessageBytes}`);
    }
    const more = candidates.rows.length === this.settings.batchSize || plan.cut || quarantined > 0;
    if (plan.send.length === 0) return { published: 0, quarantined, more, sent: [] };
    const rows = plan.send.map(loadedRecord);
    try {
      await this.send(rows);
    } catch (e) {
      const refusal = sendRefusalOf(e);
      if (!refusal) throw e;
      return { published: 0, quarantined: quarantined + (await this.refusedForGood(client, shard, rows, refusal, e as Error)), more: true, sent: [] };
    }
    this.hooks.afterPublish();
    return { published: rows.length, quarantined, more, sent: rows.map((r) => r.seq) };
  }

  /**
   * Deletes the rows the broker acknowledged and commits: nothing needs a published row (ADR 0048).
   * A small batch (what a quiet relay sends, one or two rows a commit) does it in one round trip:
   * the DELETE and the COMMIT as one simple query, the seqs (the table's own bigints) written into
   * its text. A larger batch is the busy relay's, where that round trip is shared by many rows and
   * a text planned at every batch cost more than it saved (about 3% of throughput, measured):
   * there the DELETE is the named statement and the COMMIT follows. A DELETE that fails skips the
   * COMMIT (the caller rolls back). Fewer rows than sent means another writer removed some under
   * our lock: they are gone either way, so the rest stay deleted and the batch is reported failed.
   */
  private async deleteAndCommit(client: PoolClient, seqs: string[]): Promise<void> {
    let deleted: QueryResult;
    if (seqs.length <= ONE_TRIP_DELETE_MAX_ROWS) {
      for (const seq of seqs) if (!/^[0-9]+$/.test(seq)) throw new Error(`outbox seq ${JSON.stringify(seq)} is not a bigint`);
      [deleted] = (await client.query(`${DELETE_SENT_TEXT.replace('$1', `'{${seqs.join(',')}}'`)}; COMMIT`)) as unknown as [QueryResult, QueryResult];
    } else {
      deleted = await client.query(preparedQuery(DELETE_SENT_TEXT, [seqs]));
      await client.query('COMMIT');
    }
    if (deleted.rowCount !== seqs.length) {
      throw new Error(`deleted ${deleted.rowCount} of ${seqs.length} published outbox rows; another writer interfered`);
    }
  }

  /**
   * One send. A row written under a span is published under a child span of it, whose context
   * travels as the message's traceparent/tracestate headers (ADR 0028); other rows go as stored.
   */
  private async send(rows: OutboxRecord[]): Promise<void> {
    const spans = rows.map((r) => (r.trace_context ? this.publishSpan(r) : undefined));
    const headers = rows.map((r, i) => withTraceHeaders(r.headers ?? undefined, spans[i] && this.tracing.carrierOf(spans[i])));
    const { byTopic, messages } = groupByTopic(rows, headers);
    // A final entry's copy also goes to its tenant's result topic: the same message in the same
    // send, acknowledged (or not) with the row (ADR 0073).
    const copies = this.results.addCopies(byTopic, rows.map((r, i) => ({ resultTenant: r.result_tenant, message: messages[i] })));
    let failure: unknown;
    try {
      await this.publisher.sendBatch(byTopic);
    } catch (e) {
      failure = e;
      // A result topic deleted since the last look fails the send: look again before the retry.
      if (copies.size > 0) void this.checkResultTopics();
      throw e;
    } finally {
      for (const span of spans) if (span) endSpan(span, failure);
    }
    this.countResultCopies(copies);
  }

  private countResultCopies(copies: Map<string, Map<ResultCopyOutcome, number>>): void {
    for (const [tenant, outcomes] of copies) {
      for (const [outcome, n] of outcomes) {
        resultCopiesTotal.inc({ outcome }, n);
        if (outcome === 'published') {
          this.stats.resultCopies += n;
          continue;
        }
        this.stats.resultCopiesUnrouted += n;
        if (!this.warnedTenants.has(`${tenant}\u0000${outcome}`) && this.warnedTenants.size < WARNED_TENANTS_MAX) {
          this.warnedTenants.add(`${tenant}\u0000${outcome}`);
          this.log.warn({ msg: 'final entry of a tenant without a result topic; kept in the journal and on the journal topic', tenant, why: outcome });
        }
      }
    }
  }

  private publishSpan(r: OutboxRecord): Span {
    return this.tracing.startSpan('relay publish', r.trace_context!, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'kafka', 'messaging.operation.type': 'send', 'messaging.destination.name': r.topic, 'arvis.outbox.seq': r.seq },
    });
  }

  /**
   * The broker refused the send for good: as too large although within our limits (its own limit
   * is lower), or for authorization (this principal may not write one of the topics: an ACL
   * missing, or a row for a topic no publisher may write). Retried, it would be refused for ever
   * and hold back every row behind it. A single row is quarantined, with why; the operator
   * releases it once the cause is fixed (docs/operations.md). Several rows: the broker may have
   * stored the other partitions' share, which we cannot tell apart, so nothing is deleted and
   * the rows up to the last one are sent one at a time, which finds the culprit.
   */
  private async refusedForGood(client: PoolClient, shard: number, rows: OutboxRecord[], refusal: SendRefusal, e: Error): Promise<number> {
    if (rows.length === 1) {
      return this.quarantine(client, rows[0].seq, `${refusal === 'authorization' ? 'broker_refused_authorization' : 'broker_refused'}: ${e.message}`);
    }
    this.isolateThrough.set(shard, BigInt(rows[rows.length - 1].seq));
    this.log.warn({ msg: 'broker refused a send; sending its rows one at a time', rows: rows.length, refusal, error: e.message });
    return 0;
  }

  private isolating(shard: number, firstSeq: string | undefined): boolean {
    const through = this.isolateThrough.get(shard);
    if (through === undefined || firstSeq === undefined) return false;
    if (BigInt(firstSeq) <= through) return true;
    this.isolateThrough.delete(shard);
    return false;
  }

  /** Sets a row aside for good: it stays unpublished and is never selected again. */
  private async quarantine(client: PoolClient, seq: string, reason: string): Promise<number> {
    const res = await client.query(
      `UPDATE outbox SET quarantined_at = now(), quarantine_reason = $2 WHERE seq = $1::bigint AND published_at IS NULL AND quarantined_at IS NULL`,
      [seq, reason],
    );
    if (res.rowCount !== 1) throw new Error(`quarantined ${res.rowCount} of 1 outbox row ${seq}; another writer interfered`);
    this.log.warn({ msg: 'outbox row quarantined', seq: String(seq), why: reason });
    return 1;
  }

  /**
   * Deletes rows marked published (only a relay from before ADR 0048 marks rows; it may still run
   * during a rolling upgrade) older than the retention, in bounded batches; returns how many.
   */
  async prune(): Promise<number> {
    let total = 0;
    for (;;) {
      const res = await this.pool.query(
        `DELETE FROM outbox WHERE seq IN (
           SELECT seq FROM outbox WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1::float8 / 1000)
           ORDER BY seq LIMIT $2)`,
        [this.settings.retentionMs, this.settings.pruneBatch],
      );
      total += res.rowCount ?? 0;
      if ((res.rowCount ?? 0) < this.settings.pruneBatch || !this.running) break;
    }
    this.stats.pruned += total;
    return total;
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    if (this.resultTopicsTimer) clearInterval(this.resultTopicsTimer);
    await this.draining;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
