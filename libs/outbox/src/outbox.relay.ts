import { Logger } from '@nestjs/common';
import { Client, Pool, type PoolClient } from 'pg';
import type { RelaySettings } from '@arvis/config';
import type { KafkaPublisher, OutboundMessage } from '@arvis/kafka';
import { handleClientErrors, handlePoolErrors } from '@arvis/persistence';

export interface RelayStats {
  published: number;
  batches: number;
  skippedWhileAnotherRelayActive: number;
  failedBatches: number;
  pruned: number;
}

// One relay publishes at a time (transaction-scoped advisory lock), so one run's messages are
// never reordered by two relays racing; if it dies its transaction aborts and another takes over.
const RELAY_LOCK_KEY = 7_276_873_010;
const NOTIFY_CHANNEL = 'arvis_outbox';

/**
 * Publishes outbox rows at least once. Rows are selected by `published_at IS NULL`, never by
 * "seq greater than the last published" (sequence order is not commit order), and marked only
 * after the broker acknowledged them. Woken by LISTEN/NOTIFY; the poll is a fallback.
 * Uses `pg` directly: LISTEN and a lock held across the broker round trip are outside Prisma.
 */
export class OutboxRelay {
  private readonly log = new Logger(OutboxRelay.name);
  private readonly pool: Pool;
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  private pruneTimer?: NodeJS.Timeout;
  private running = false;
  private draining?: Promise<void>;
  private wakeAgain = false;
  readonly stats: RelayStats = { published: 0, batches: 0, skippedWhileAnotherRelayActive: 0, failedBatches: 0, pruned: 0 };

  constructor(
    private readonly databaseUrl: string,
    private readonly publisher: KafkaPublisher,
    private readonly settings: RelaySettings,
  ) {
    this.pool = handlePoolErrors(new Pool({ connectionString: databaseUrl, max: 1 }), 'relay', (m) => this.log.warn(m));
  }

  async start(): Promise<void> {
    this.running = true;
    // The broker may be down at start-up: publishing connects (and reconnects) on demand.
    await this.publisher.connect().catch((e: Error) => this.log.warn(`broker not reachable yet: ${e.message}`));
    await this.listen();
    this.timer = setInterval(() => this.wake(), this.settings.pollMs);
    this.pruneTimer = setInterval(() => void this.prune().catch((e: Error) => this.log.warn(`prune failed: ${e.message}`)), this.settings.pruneIntervalMs);
    this.wake();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', () => this.wake());
    let lost = false;
    client.on('error', (e) => {
      if (lost) return;
      lost = true;
      // The poll keeps us going; reconnect the listener in the background.
      this.log.warn(`LISTEN connection lost: ${e.message}`);
      if (this.listener === client) this.listener = undefined;
      this.relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    this.listener = client;
    // Rows committed while we were not listening sent no NOTIFY we heard.
    this.wake();
  }

  /** Retries LISTEN until it works again (the database may be down for a while). */
  private relisten(): void {
    if (!this.running) return;
    setTimeout(() => {
      if (!this.running || this.listener) return;
      this.listen().catch((e: Error) => {
        this.log.warn(`LISTEN reconnect failed, will retry: ${e.message}`);
        this.relisten();
      });
    }, 1000).unref();
  }

  /** Coalesces wake-ups: at most one drain at a time, and one more if woken during it. */
  wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.wakeAgain = true;
      return;
    }
    this.draining = this.drain()
      .catch((e: Error) => {
        this.stats.failedBatches++;
        this.log.warn(`relay batch failed, will retry: ${e.message}`);
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
      const n = await this.publishOneBatch();
      if (n < this.settings.batchSize) return;
    }
  }

  /** Returns how many rows it published (0 when idle or another relay holds the lock). */
  async publishOneBatch(): Promise<number> {
    const client: PoolClient = await this.pool.connect();
    // A checked-out client has no pool listener: the connection can be cut while we wait on the
    // broker. Note it, fail this batch at its next statement, and drop the client on release.
    let lost: Error | undefined;
    const onLost = (e: Error) => (lost = e);
    client.on('error', onLost);
    try {
      await client.query('BEGIN');
      const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [RELAY_LOCK_KEY]);
      if (!lock.rows[0].ok) {
        await client.query('ROLLBACK');
        this.stats.skippedWhileAnotherRelayActive++;
        return 0;
      }
      const { rows } = await client.query<{
        seq: string;
        topic: string;
        message_key: string;
        payload: string;
        headers: Record<string, string> | null;
      }>(
        `SELECT seq::text, topic, message_key, payload, headers FROM outbox
         WHERE published_at IS NULL ORDER BY outbox.seq LIMIT $1`, // not the text alias
        [this.settings.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      const byTopic = new Map<string, OutboundMessage[]>();
      for (const r of rows) {
        const list = byTopic.get(r.topic) ?? [];
        list.push({ key: r.message_key, value: r.payload, headers: r.headers ?? undefined });
        byTopic.set(r.topic, list);
      }
      await this.publisher.sendBatch(byTopic);
      if (this.settings.crashAfterPublish) {
        // Fault point: the broker has the messages, the rows are still unmarked.
        process.kill(process.pid, 'SIGKILL');
      }
      const marked = await client.query(`UPDATE outbox SET published_at = now() WHERE seq = ANY($1::bigint[]) AND published_at IS NULL`, [
        rows.map((r) => r.seq),
      ]);
      if (marked.rowCount !== rows.length) {
        throw new Error(`marked ${marked.rowCount} of ${rows.length} outbox rows; another writer interfered`);
      }
      await client.query('COMMIT');
      this.stats.published += rows.length;
      this.stats.batches++;
      return rows.length;
    } catch (e) {
      await client.query('ROLLBACK').catch((r: Error) => (lost ??= r));
      throw e;
    } finally {
      client.off('error', onLost);
      client.release(lost);
    }
  }

  /** Deletes published rows older than the retention, in bounded batches; returns how many. */
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
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.draining;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
