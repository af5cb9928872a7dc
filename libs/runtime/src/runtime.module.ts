import { Global, Module, type DynamicModule } from '@nestjs/common';
import { TracingModule } from '@arvis/tracing';
import { HealthController } from './health.controller';
import { MetricsRegistry } from './metrics-registry';
import { SERVICE_SETTINGS, ServiceRuntime, type ServiceSettings } from './service-runtime';

/**
 * What every service runs beside its own work: the in-process outbox relay (when enabled), the
 * metrics registry, the tracer (TracingModule), and the health and metrics endpoints. Needs
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
      providers: [{ provide: SERVICE_SETTINGS, useValue: settings }, ServiceRuntime, MetricsRegistry],
      exports: [SERVICE_SETTINGS, ServiceRuntime, MetricsRegistry],
    };
  }
}
