import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { DatabaseSettings } from '@arvis/config';
import { PrismaClient } from './generated/prisma/client';
import { handlePoolErrors } from './pg-errors';

const log = new Logger('PrismaService');

/** Prisma over the pg driver adapter (no query-engine binary at run time). */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(readonly settings: DatabaseSettings) {
    // Our own pool, so that its 'error' listener exists from the first connection (the adapter
    // adds one only when Prisma connects) and a dropped connection is logged, never fatal.
    const pool = handlePoolErrors(new Pool({ connectionString: settings.url, max: settings.poolSize }), 'prisma', (m) => log.warn(m));
    super({
      adapter: new PrismaPg(pool, {
        disposeExternalPool: true,
        onPoolError: () => undefined, // already logged by our listener
        onConnectionError: (e) => log.warn(`prisma: transaction connection lost: ${e.message}`),
      }),
    });
  }

  /** An interactive transaction with the configured timeout (Prisma's default is 5 s). */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.$transaction(fn, { timeout: this.settings.txTimeoutMs, maxWait: this.settings.txTimeoutMs });
  }

  // Nest stops in this order: onModuleDestroy (the polling workers stop), then it closes the HTTP
  // server and the Kafka consumers (which wait for their batch in flight), then
  // onApplicationShutdown. Disconnecting any earlier would cut the last batch's transactions.
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}

export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
