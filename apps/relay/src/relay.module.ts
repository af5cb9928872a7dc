import { Module, type DynamicModule } from '@nestjs/common';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import type { RelayConfig } from './relay.config';

/** The outbox relay on its own, so it can be scaled and killed apart from the two apps. */
@Module({})
export class RelayModule {
  static forRoot(config: RelayConfig): DynamicModule {
    return {
      module: RelayModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config)],
    };
  }
}
