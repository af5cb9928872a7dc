import { Controller, Get, HttpException, HttpStatus, Header } from '@nestjs/common';
import { collectDefaultMetrics, Gauge } from 'prom-client';
import { MetricsRegistry } from './metrics-registry';
import { ServiceRuntime } from './service-runtime';

@Controller()
export class HealthController {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly registry: MetricsRegistry,
  ) {
    collectDefaultMetrics({ register: this.registry });
    const runtimeRef = this.runtime;
    new Gauge({
      name: 'arvis_outbox_depth',
      help: 'Outbox rows not yet acknowledged by the broker (quarantined rows excluded)',
      registers: [this.registry],
      async collect() {
        this.set((await runtimeRef.outboxDepth()).depth);
      },
    });
    new Gauge({
      name: 'arvis_outbox_oldest_age_ms',
      help: 'Age of the oldest unpublished outbox row (relay lag)',
      registers: [this.registry],
      async collect() {
        this.set((await runtimeRef.outboxDepth()).oldestAgeMs);
      },
    });
    new Gauge({
      name: 'arvis_outbox_quarantined',
      help: 'Outbox rows set aside because the broker can never accept them (too large); list them with `cli outbox --quarantined`',
      registers: [this.registry],
      async collect() {
        this.set((await runtimeRef.outboxDepth()).quarantined);
      },
    });
  }

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(): Promise<Record<string, unknown>> {
    try {
      const outbox = await this.runtime.outboxDepth();
      // Quarantined rows do not make the service unready (the relay goes on); they are shown here.
      return { status: 'ok', service: this.runtime.settings.service, outbox, relay: this.runtime.relay?.stats ?? null };
    } catch (e) {
      throw new HttpException({ status: 'unavailable', error: (e as Error).message }, HttpStatus.SERVICE_UNAVAILABLE);
    }
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
