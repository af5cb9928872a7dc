import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { Counter } from 'prom-client';
import { RetentionPruner, type DedupeFence, type PruneCounts } from '@arvis/lifecycle';
import { handlePoolErrors } from '@arvis/persistence';
import { MetricsRegistry, JournalRollbackGuard, PeriodicTask } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { readDedupeFence } from './dedupe-fence';

const TABLES = ['intents', 'capabilities', 'effects', 'inbox', 'confirmations', 'retries', 'markers', 'notifications'] as const;

/**
 * Retention (ADR 0041): every RETENTION_PRUNE_INTERVAL_MS, deletes what no guarantee still needs,
 * in bounded batches (libs/lifecycle RetentionPruner). Runs in every authorizer; an advisory lock
 * keeps it to one at a time. Off unless RETENTION_ENABLED.
 */
@Injectable()
export class PruneRecordsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(PruneRecordsService.name);
  private readonly pool?: Pool;
  private readonly pruner?: RetentionPruner;
  private readonly task?: PeriodicTask;
  private readonly pruned: Counter<'table'>;
  private readonly dedupeHeld: Counter;
  private running = false;
  private lastHeldWhy?: string;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    metrics: MetricsRegistry,
    private readonly rollback: JournalRollbackGuard,
  ) {
    this.pruned = new Counter({ name: 'arvis_retention_pruned_rows_total', help: 'Rows deleted by retention, by table', labelNames: ['table'], registers: [metrics] });
    this.dedupeHeld = new Counter({ name: 'arvis_retention_dedupe_held_total', help: 'Passes that kept every dedupe row (what the decisions topic can still deliver could not be read)', registers: [metrics] });
    const r = config.retention;
    if (!r.enabled) return;
    this.pool = handlePoolErrors(new Pool({ connectionString: config.database.url, max: 1, application_name: 'arvis-retention' }), 'retention', (m) => this.log.warn(m));
    this.pruner = new RetentionPruner(this.pool, { decisionsMs: r.decisionsMs, dedupeMs: r.dedupeMs, batch: r.batch });
    // Not while the database is behind the journal topic (ADR 0055).
    this.task = new PeriodicTask('retention', r.intervalMs, () => (this.rollback.open ? this.pass() : Promise.resolve()), this.log);
  }

  onApplicationBootstrap(): void {
    if (!this.task) return void this.log.log({ msg: 'retention off: nothing is pruned but published outbox rows', setting: 'RETENTION_ENABLED=false' });
    this.running = true;
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    await this.task?.stop();
    await this.pool?.end();
  }

  async pass(): Promise<PruneCounts | null> {
    const fence = await this.readDedupeFence();
    const held = typeof fence === 'string' ? fence : undefined;
    if (held !== undefined) {
      this.dedupeHeld.inc();
      if (held !== this.lastHeldWhy) this.log.warn({ msg: 'retention keeps every dedupe row', why: held });
    }
    this.lastHeldWhy = held;
    const counts = await this.pruner!.pruneOnce({ dedupe: typeof fence === 'string' ? false : fence, keepGoing: () => this.running });
    if (!counts) return null;
    for (const t of TABLES) if (counts[t] > 0) this.pruned.inc({ table: t }, counts[t]);
    const total = TABLES.reduce((n, t) => n + counts[t], 0);
    if (total > 0) this.log.log({ msg: 'retention pruned', rows: Object.fromEntries(TABLES.map((t) => [t, counts[t]])), batches: counts.batches });
    return counts;
  }

  private readDedupeFence(): Promise<DedupeFence | string> {
    return readDedupeFence({ ...this.config.kafka, clientId: `${this.config.kafka.clientId}-retention` }, this.config.topics.decisions, this.config.retention.dedupeMs);
  }
}
