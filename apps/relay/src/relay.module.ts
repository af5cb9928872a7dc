import { Module, type DynamicModule } from '@nestjs/common';
import { PrismaService } from '@arvis/persistence';
import { HealthController, MetricsRegistry, SERVICE_SETTINGS, ServiceRuntime } from '@arvis/runtime';
import type { RelayConfig } from './relay.config';

/** The outbox relay on its own, so it can be scaled and killed apart from the two apps. */
@Module({})
export class RelayModule {
  static forRoot(config: RelayConfig): DynamicModule {
    return {
      module: RelayModule,
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_SETTINGS, useValue: config },
        { provide: PrismaService, useFactory: () => new PrismaService(config.database) },
        ServiceRuntime,
        MetricsRegistry,
      ],
    };
  }
}
