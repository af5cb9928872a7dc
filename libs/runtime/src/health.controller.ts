import { Controller, Get, HttpStatus, Header, Logger, Res } from '@nestjs/common';
import { ApiError } from './http-errors';
import { collectDefaultMetrics, Gauge, type Metric } from 'prom-client';
import { ConsumerStates } from './consumer-states';
import { MetricsRegistry } from './metrics-registry';
import { ServiceRuntime } from './service-runtime';
import { scrapeSnapshot } from './scrape-snapshot';
import { describeVerdict, JournalRollbackGuard } from './journal-rollback-guard';
import { arvisVersion } from '@arvis/config';
import { journalMetrics } from '@arvis/journal';
import { consumerLag, deadLettersTotal } from '@arvis/kafka';
import { resultCopiesTotal } from '@arvis/outbox';

/** How often the event-loop delay is sampled (prom-client's `nodejs_eventloop_lag_*`). */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** Which release answers (ADR 0065): always 1, labelled, so a dashboard can count the versions of a rollout. */
export function registerBuildInfo(registry: MetricsRegistry, version: string, service: string): void {
  new Gauge({
    name: 'arvis_build_info',
    help: 'Always 1; the version label is the release this process runs (package.json)',
    labelNames: ['version', 'service'],
    registers: [registry],
  }).set({ version, service }, 1);
}

/** Served on the management port only (ADR 0038). */
@Controller()
export class HealthController {
  private readonly log = new Logger('Health');
  private readonly version = arvisVersion();
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly registry: MetricsRegistry,
    private readonly rollback: JournalRollbackGuard,
    private readonly consumers: ConsumerStates,
  ) {
    // The event-loop delay histogram samples on a libuv timer: at prom-client's default 10 ms it
    // woke an idle process 100 times a second (ADR 0059); 100 ms still shows a loop that stalls.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // Four outbox gauges and two checkpoint gauges: one read each per scrape.
    const outbox = scrapeSnapshot(() => this.runtime.outboxDepth());
    const checkpoints = scrapeSnapshot(() => this.runtime.checkpointLag());
    registerBuildInfo(this.registry, this.version, this.runtime.settings.service);
    new Gauge({
      name: 'arvis_outbox_depth',
      help: 'Outbox rows not yet acknowledged by the broker (quarantined rows excluded)',
      registers: [this.registry],
      async collect() {
        this.set((await outbox()).depth);
      },
    });
    new Gauge({
      name: 'arvis_outbox_oldest_age_seconds',
      help: 'Age of the oldest unpublished outbox row, in seconds (relay publish lag)',
      registers: [this.registry],
      async collect() {
        this.set((await outbox()).oldestAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'arvis_outbox_oldest_age_ms',
      help: 'Deprecated: arvis_outbox_oldest_age_seconds in milliseconds; removed in a later release',
      registers: [this.registry],
      async collect() {
        this.set((await outbox()).oldestAgeMs);
      },
    });
    new Gauge({
      name: 'arvis_outbox_quarantined',
      help: 'Outbox rows set aside because the broker can never accept them (too large); list them with `cli outbox --quarantined`',
      registers: [this.registry],
      async collect() {
        this.set((await outbox()).quarantined);
      },
    });
    new Gauge({
      name: 'arvis_journal_entries_unchecked',
      help: 'Journal entries past the newest signed checkpoint (ADR 0025); growing while checkpoints are signed means they stopped',
      registers: [this.registry],
      async collect() {
        this.set((await checkpoints()).unchecked);
      },
    });
    new Gauge({
      name: 'arvis_journal_unchecked_age_seconds',
      help: 'Seconds the first journal entry past the newest signed checkpoint has waited for one (0: none waits)',
      registers: [this.registry],
      async collect() {
        this.set((await checkpoints()).oldestUncheckedSeconds);
      },
    });
    // Counted by the libraries where they happen (one increment each), served here.
    for (const m of [...journalMetrics, deadLettersTotal, consumerLag, resultCopiesTotal] as Metric[]) this.registry.registerMetric(m);
  }

  @Get('health/live')
  live(): { status: 'ok'; version: string } {
    return { status: 'ok', version: this.version };
  }

  @Get('health/ready')
  async ready(@Res({ passthrough: true }) res: { status(code: number): unknown }): Promise<Record<string, unknown>> {
    const verdict = this.rollback.verdict;
    if (verdict.state !== 'consistent') {
      // Refusing to work, and saying why (ADR 0055): the verdict's code and its facts.
      res.status(HttpStatus.SERVICE_UNAVAILABLE);
      const { state, ...facts } = verdict;
      return { statusCode: HttpStatus.SERVICE_UNAVAILABLE, error: state, message: describeVerdict(verdict), service: this.runtime.settings.service, version: this.version, ...(state === 'journal_topic_unread' ? {} : { rollback: facts }) };
    }
    try {
      const outbox = await this.runtime.outboxDepth();
      // Quarantined rows do not make the service unready (the relay goes on); they are shown here.
      // Each consumer's state (a dispatcher's: per pool, ADR 0081); reported, not judged: a broker
      // outage is waited out, and readiness does not flap with it.
      return { status: 'ok', service: this.runtime.settings.service, version: this.version, outbox, relay: this.runtime.relay?.stats ?? null, consumers: this.consumers.snapshot() };
    } catch (e) {
      // The driver's message (host names, SQL) is for the log, not for whoever can reach the port.
      this.log.warn({ msg: 'not ready', error: (e as Error).message });
      throw new ApiError(HttpStatus.SERVICE_UNAVAILABLE, 'unavailable', { message: 'the database cannot be reached' });
    }
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
