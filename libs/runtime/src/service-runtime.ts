import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createKafka, KafkaPublisher } from '@arvis/kafka';
import { JournalCheckpointer } from '@arvis/journal';
import { OutboxRelay } from '@arvis/outbox';
import { Database } from '@arvis/persistence';
import { Tracing } from '@arvis/tracing';
import type { CheckpointSettings, DatabaseSettings, Faults, KafkaSettings, RelaySettings, TracingSettings } from '@arvis/config';
import { PeriodicTask } from './periodic-task';
import { relayHooksFor } from './relay-fault-hooks';

export const SERVICE_SETTINGS = Symbol('SERVICE_SETTINGS');

export interface ServiceSettings {
  service: string;
  database: DatabaseSettings;
  kafka: KafkaSettings;
  relay: RelaySettings;
  /** ARVIS_FAULTS (test profile only): binds the relay's crash window (relay-fault-hooks.ts). */
  faults?: Faults;
  /** Signed journal checkpoints, written beside the relay; null or absent: none (ADR 0025). */
  checkpoint?: CheckpointSettings | null;
  /** The journal topic, where checkpoints go; needed only with `checkpoint`. */
  topics?: { journal: string };
  tracing: TracingSettings;
  /**
   * Whether this process compares the database's journal with the journal topic before it works
   * (ADR 0055); default yes. The standalone relay consumes and appends nothing: off there.
   */
  rollbackCheck?: boolean;
}

/**
 * Shared plumbing of both apps: the Prisma client, the outbox relay running in-process, and an
 * orderly stop (consumers first, then the relay drains what they committed, then the database;
 * spans are flushed last, so those of the final drain are exported too).
 */
@Injectable()
export class ServiceRuntime implements OnApplicationShutdown {
  private readonly log = new Logger(ServiceRuntime.name);
  readonly relay?: OutboxRelay;
  private readonly publisher?: KafkaPublisher;
  private relayStarted = false;
  private checkpoints?: PeriodicTask;

  constructor(
    @Inject(SERVICE_SETTINGS) readonly settings: ServiceSettings,
    readonly db: Database,
    private readonly tracing: Tracing,
  ) {
    if (settings.relay.enabled) {
      this.publisher = new KafkaPublisher(createKafka({ ...settings.kafka, clientId: `${settings.kafka.clientId}-relay` }));
      this.relay = new OutboxRelay(settings.database.url, this.publisher, settings.relay, tracing, relayHooksFor(settings.faults));
    }
  }

  async startRelay(): Promise<void> {
    if (!this.relay || this.relayStarted) return;
    await this.relay.start();
    this.relayStarted = true;
    this.log.log('outbox relay started');
    this.startCheckpoints();
  }

  /**
   * Checkpoints run where the relay runs: every process that can publish the journal can sign its
   * head, and the checkpointer's own lock keeps it to one writer at a time (ADR 0025).
   */
  private startCheckpoints(): void {
    const { checkpoint, topics } = this.settings;
    if (!checkpoint || !topics) {
      this.log.log({ msg: 'journal checkpoints off', why: 'no JOURNAL_CHECKPOINT_SIGNING_KEY' });
      return;
    }
    const checkpointer = new JournalCheckpointer(this.db, checkpoint, topics.journal);
    const pass = async () => {
      const { written, allSigned, dueInMs } = await checkpointer.checkpointPass();
      for (const w of written) {
        this.log.log({ msg: 'journal checkpoint signed', chain: w.chain, seq: String(w.seq), keyId: w.signature.keyId });
      }
      // Entries unsigned but not due: by age they come due at dueInMs, waited for by one timer.
      if (dueInMs !== undefined) this.checkpoints?.runIn(dueInMs);
      return allSigned || (dueInMs !== undefined && written.length === 0);
    };
    // Polled more often than everyMs so the entry count triggers promptly; each idle pass is two
    // small reads. Nothing comes due by count until entries are appended, and those are published
    // by a relay, whose publishing brings the pass back to its period; what comes due by age is
    // waited for by a timer (runIn). So a pass that finds every head signed, or nothing due yet,
    // slows down (to IDLE_POLL_MAX_MS, never past everyMs; ADR 0059), where a pass that found
    // entries not yet due used to run every second until they were.
    const idleMaxMs = Math.min(this.settings.relay.idlePollMaxMs, checkpoint.everyMs);
    this.checkpoints = new PeriodicTask('journal checkpoint', Math.min(checkpoint.everyMs, 1000), pass, this.log, { maxMs: idleMaxMs, idle: (nothingDueNow) => nothingDueNow === true });
    this.relay?.onPublished(() => this.checkpoints?.poke());
    this.checkpoints.start();
  }

  /**
   * A wake-up for every commit that wrote the outbox anywhere (the relay's LISTEN/NOTIFY): a
   * poller whose work is always committed with a journal entry may slow down while idle and wake
   * on it (ADR 0059). Undefined without a relay in this process: no signal, no back-off.
   */
  get outboxCommits(): { on(listener: () => void): void; readonly heard: boolean } | undefined {
    const relay = this.relay;
    if (!relay) return undefined;
    return {
      on: (listener) => relay.onOutboxCommit(listener),
      get heard() {
        return relay.listening;
      },
    };
  }

  /** Depth and lag count only rows that will still be sent; quarantined rows are reported apart. */
  async outboxDepth(): Promise<{ depth: number; oldestAgeMs: number; quarantined: number }> {
    const rows = await this.db.$queryRaw<{ depth: bigint; oldest_ms: number | null; quarantined: bigint }[]>`
      SELECT count(*) FILTER (WHERE quarantined_at IS NULL) AS depth,
             (extract(epoch FROM now() - min(created_at) FILTER (WHERE quarantined_at IS NULL)) * 1000)::float8 AS oldest_ms,
             (SELECT count(*) FROM outbox WHERE quarantined_at IS NOT NULL AND discarded_at IS NULL) AS quarantined
      FROM outbox WHERE published_at IS NULL`;
    return {
      depth: Number(rows[0].depth),
      oldestAgeMs: Math.max(0, Math.round(rows[0].oldest_ms ?? 0)),
      quarantined: Number(rows[0].quarantined),
    };
  }

  /**
   * How far the chain head is past its newest signed checkpoint, and how long the first entry
   * past it has waited (0: none waits). A checkpoint is due within JOURNAL_CHECKPOINT_EVERY_MS of
   * that entry (ADR 0025), so a wait well past it means checkpoints stopped. Read at scrape time;
   * every process reads the same rows, so replicas report the same figures.
   */
  async checkpointLag(): Promise<{ unchecked: number; oldestUncheckedSeconds: number }> {
    // Summed over the chains (ADR 0062); the wait is the longest of any chain's.
    const [row] = await this.db.$queryRaw<{ unchecked: bigint | null; age: number | null }[]>`
      SELECT sum(h.last_seq - coalesce(c.seq, 0))::bigint AS unchecked,
             max(CASE WHEN h.last_seq > coalesce(c.seq, 0) THEN
               (SELECT extract(epoch FROM now() - j.recorded_at)::float8 FROM journal j WHERE j.chain = h.chain AND j.journal_seq = coalesce(c.seq, 0) + 1) END) AS age
      FROM journal_head h
      LEFT JOIN LATERAL (SELECT journal_seq AS seq FROM journal_checkpoints WHERE chain = h.chain ORDER BY journal_seq DESC LIMIT 1) c ON true`;
    if (!row || row.unchecked === null) return { unchecked: 0, oldestUncheckedSeconds: 0 };
    const unchecked = Number(row.unchecked);
    return { unchecked, oldestUncheckedSeconds: unchecked > 0 && row.age !== null ? Math.max(0, row.age) : 0 };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.checkpoints?.stop();
    if (this.relayStarted) {
      // One last drain so rows committed by the final batches leave before we exit.
      await this.relay!.publishOneBatch().catch(() => 0);
      await this.relay!.stop();
    }
    await this.publisher?.disconnect().catch(() => undefined);
    await this.tracing.shutdown();
    this.log.log({ msg: `${this.settings.service} stopped` });
  }
}
