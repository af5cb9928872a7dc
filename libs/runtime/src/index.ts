export { PinoLogger } from './pino-logger';
export { ServiceRuntime, SERVICE_SETTINGS, type ServiceSettings } from './service-runtime';
export { HealthController } from './health.controller';
export { runService, type RunServiceOptions } from './run-service';
export { MetricsRegistry } from './metrics-registry';
export { PeriodicTask } from './periodic-task';
export { RuntimeModule } from './runtime.module';
