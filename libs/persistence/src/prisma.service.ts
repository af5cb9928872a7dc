import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { DatabaseSettings } from '@arvis/config';
import { PrismaClient } from './generated/prisma/client';
import { handlePoolErrors } from './pg-errors';
import { inPgTransaction, pgStatements, type SqlClient } from './pg-transaction';

const log = new Logger('PrismaService');

/** Prisma over the pg driver adapter (no query-engine binary at run time). */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  private readonly pool: Pool;
  /** Raw statements, each autocommitted, on pg directly (ADR 0044): for the hot path outside `tx()`. */
  readonly sql: SqlClient;

  constructor(readonly settings: DatabaseSettings) {
    // Our own pool, so that its 'error' listener exists from the first connection (the adapter
    // adds one only when Prisma connects) and a dropped connection is logged, never fatal.
    // A connection not handed out within the transaction timeout fails like Prisma's maxWait did.
    const pool = handlePoolErrors(
      new Pool({ connectionString: settings.url, max: settings.poolSize, connectionTimeoutMillis: settings.txTimeoutMs }),
      'prisma',
      (m) => log.warn(m),
    );
    super({
      adapter: new PrismaPg(pool, {
        disposeExternalPool: true,
        onPoolError: () => undefined, // already logged by our listener
        onConnectionError: (e) => log.warn(`prisma: transaction connection lost: ${e.message}`),
      }),
    });
    this.pool = pool;
    this.sql = pgStatements(pool);
  }

  /**
   * A transaction of raw statements, on pg directly over the same pool (ADR 0044), rolled back
   * past the configured timeout.
   */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return inPgTransaction(this.pool, this.settings.txTimeoutMs, fn);
  }

  // Nest stops in this order: onModuleDestroy (the polling workers stop), then it closes the HTTP
  // server and the Kafka consumers (which wait for their batch in flight), then
  // onApplicationShutdown. Disconnecting any earlier would cut the last batch's transactions.
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}

/** What a store's statements run on: a transaction from `tx()`, or the service itself (autocommit). */
export type Tx = SqlClient;
