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
      // It consumes and appends nothing: the rows it publishes were committed (ADR 0055).
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot({ ...config, rollbackCheck: false })],
    };
  }
}
