import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { DatabaseSettings } from '@arvis/config';
import { Database } from './database';
import { StoreFingerprint } from './store-fingerprint';

/** The database client and this store's fingerprint, once per process, for every module. */
@Global()
@Module({})
export class PersistenceModule {
  static forRoot(database: DatabaseSettings): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [{ provide: Database, useFactory: () => new Database(database) }, StoreFingerprint],
      exports: [Database, StoreFingerprint],
    };
  }
}
