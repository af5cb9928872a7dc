import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConfigResourceTypes } from 'kafkajs';
import { Pool } from 'pg';
import { Counter } from 'prom-client';
import { createKafka } from '@arvis/kafka';
import { RetentionPruner, type PruneCounts } from '@arvis/lifecycle';
import { handlePoolErrors } from '@arvis/persistence';
import { MetricsRegistry, PeriodicTask } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { dedupeVerdict } from './dedupe-window';

const TABLES = ['intents', 'capabilities', 'effects', 'inbox', 'confirmations', 'retries'] as const;

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
  ) {
    this.pruned = new Counter({ name: 'arvis_retention_pruned_rows_total', help: 'Rows deleted by retention, by table', labelNames: ['table'], registers: [metrics] });
    this.dedupeHeld = new Counter({ name: 'arvis_retention_dedupe_held_total', help: 'Passes that kept every dedupe row (decisions topic retention not shorter than RETENTION_DEDUPE_MS)', registers: [metrics] });
    const r = config.retention;
    if (!r.enabled) return;
    this.pool = handlePoolErrors(new Pool({ connectionString: config.database.url, max: 1, application_name: 'arvis-retention' }), 'retention', (m) => this.log.warn(m));
    this.pruner = new RetentionPruner(this.pool, { decisionsMs: r.decisionsMs, dedupeMs: r.dedupeMs, batch: r.batch });
    this.task = new PeriodicTask('retention', r.intervalMs, () => this.pass(), this.log);
  }

  onApplicationBootstrap(): void {
    if (!this.task) return void this.log.log('retention off (RETENTION_ENABLED=false): nothing is pruned but published outbox rows');
    this.running = true;
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    await this.task?.stop();
    await this.pool?.end();
  }

  async pass(): Promise<PruneCounts | null> {
    const verdict = dedupeVerdict(this.config.retention.dedupeMs, await this.decisionsTopicRetentionMs());
    if (!verdict.prune) {
      this.dedupeHeld.inc();
      if (verdict.why !== this.lastHeldWhy) this.log.warn(`retention keeps every dedupe row: ${verdict.why}`);
    }
    this.lastHeldWhy = verdict.prune ? undefined : verdict.why;
    const counts = await this.pruner!.pruneOnce({ dedupe: verdict.prune, keepGoing: () => this.running });
    if (!counts) return null;
    for (const t of TABLES) if (counts[t] > 0) this.pruned.inc({ table: t }, counts[t]);
    const total = TABLES.reduce((n, t) => n + counts[t], 0);
    if (total > 0) this.log.log(`retention pruned ${TABLES.map((t) => `${counts[t]} ${t}`).join(', ')} in ${counts.batches} batches`);
    return counts;
  }

  /** The decisions topic's retention.ms as the broker reports it; null when it cannot be read. */
  private async decisionsTopicRetentionMs(): Promise<number | null> {
    const admin = createKafka({ brokers: this.config.kafka.brokers, clientId: `${this.config.kafka.clientId}-retention` }).admin();
    try {
      await admin.connect();
      const name = this.config.topics.decisions;
      const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms'] }], includeSynonyms: false });
      const value = described.resources[0]?.configEntries.find((c) => c.configName === 'retention.ms')?.configValue;
      return value === undefined || value === null ? null : Number(value);
    } catch (e) {
      this.log.warn(`could not read retention.ms of the decisions topic: ${(e as Error).message}`);
      return null;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
