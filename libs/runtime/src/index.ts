export { PinoLogger } from './pino-logger';
export { ServiceRuntime, SERVICE_SETTINGS, type ServiceSettings } from './service-runtime';
export { HealthController } from './health.controller';
export { runService, type RunServiceOptions, type Ports } from './run-service';
export { MetricsRegistry } from './metrics-registry';
export { PeriodicTask } from './periodic-task';
export { RuntimeModule } from './runtime.module';
export { ApiError, PublicErrorFilter, publicErrorBody, errorCodeOf, type PublicErrorBody } from './http-errors';
export { isManagementPath } from './http-surface';
