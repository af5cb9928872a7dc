import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { TracingSettings } from '@arvis/config';
import { Tracing } from './tracing';

/**
 * Provides this process's Tracing. Shutting it down (flushing spans) is left to whoever stops
 * the service last (ServiceRuntime), so spans written while the relay drains are not lost.
 */
@Global()
@Module({})
export class TracingModule {
  static forRoot(settings: TracingSettings, defaultServiceName: string): DynamicModule {
    return {
      module: TracingModule,
      providers: [{ provide: Tracing, useFactory: () => Tracing.create(settings, defaultServiceName) }],
      exports: [Tracing],
    };
  }
}
