import { Global, Module, type DynamicModule } from '@nestjs/common';
import { TracingModule } from '@arvis/tracing';
import { ConsumerStates } from './consumer-states';
import { HealthController } from './health.controller';
import { MetricsRegistry } from './metrics-registry';
import { JournalRollbackGuard } from './journal-rollback-guard';
import { SERVICE_SETTINGS, ServiceRuntime, type ServiceSettings } from './service-runtime';

/**
 * What every service runs beside its own work: the in-process outbox relay (when enabled), the
 * metrics registry, the tracer (TracingModule), the health and metrics endpoints, and the check
 * that the database's journal is not behind the journal topic (ADR 0055). Needs
 * PersistenceModule.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(settings: ServiceSettings): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [TracingModule.forRoot(settings.tracing, `arvis-${settings.service}`)],
      controllers: [HealthController],
      providers: [{ provide: SERVICE_SETTINGS, useValue: settings }, ServiceRuntime, MetricsRegistry, JournalRollbackGuard, ConsumerStates],
      exports: [SERVICE_SETTINGS, ServiceRuntime, MetricsRegistry, JournalRollbackGuard, ConsumerStates],
    };
  }
}
