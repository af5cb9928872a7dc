import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import type { DatabaseSettings } from '@arvis/config';
import type { PrismaClient } from './generated/prisma/client';
import { handlePoolErrors } from './pg-errors';
import { SERVICE_SESSION_OPTIONS } from './session-options';
import { inPgTransaction, pgStatements, type SqlClient } from './pg-transaction';

const log = new Logger('Database');

/**
 * The process's database client: every statement runs on pg over one pool (ADR 0044). The Prisma
 * client is loaded only when an off-path use asks for a model (ADR 0051): its WebAssembly query
 * compiler costs about 55 MB of resident memory from its first query on, and the hot path and
 * every raw statement need none of it.
 */
@Injectable()
export class Database implements SqlClient, OnApplicationShutdown {
  private readonly pool: Pool;
  private orm?: PrismaClient;
  private closed?: Promise<void>;
  /** Raw statements, each autocommitted, on pg directly (ADR 0044): for the hot path outside `tx()`. */
  readonly sql: SqlClient;
  // Autocommitted raw statements, read as the hot path reads them (bigint as BigInt, ADR 0044).
  readonly $queryRaw: SqlClient['$queryRaw'];
  readonly $executeRaw: SqlClient['$executeRaw'];
  readonly $queryRawUnsafe: SqlClient['$queryRawUnsafe'];
  readonly $executeRawUnsafe: SqlClient['$executeRawUnsafe'];

  constructor(readonly settings: DatabaseSettings) {
    // Our own pool, so that its 'error' listener exists from the first connection and a dropped
    // connection is logged, never fatal. A connection not handed out within the transaction
    // timeout fails like Prisma's maxWait did. One connection is kept open while idle (min): the
    // idle pollers now pass every 30 s (ADR 0059), past pg-pool's 10 s idle timeout, and would
    // otherwise open a new session (and prepare its statements again) at each pass and at the
    // first decision after a quiet spell. Sessions plan with sequential scans off (ADR 0082).
    this.pool = handlePoolErrors(
      new Pool({ connectionString: settings.url, max: settings.poolSize, min: 1, connectionTimeoutMillis: settings.txTimeoutMs, options: SERVICE_SESSION_OPTIONS }),
      'database',
      (m) => log.warn(m),
    );
    this.sql = pgStatements(this.pool);
    ({ $queryRaw: this.$queryRaw, $executeRaw: this.$executeRaw, $queryRawUnsafe: this.$queryRawUnsafe, $executeRawUnsafe: this.$executeRawUnsafe } = this.sql);
  }

  /** The approver API's "why not" read of one confirmation: off the hot path, so through the Prisma client. */
  get confirmation(): PrismaClient['confirmation'] {
    return this.client().confirmation;
  }

  /** The Prisma client over the same pool, loaded (module, adapter and query compiler) at the first call. */
  client(): PrismaClient {
    if (!this.orm) {
      // Required here, not imported: importing would load it in every process at start.
      const { PrismaClient: Client } = require('./generated/prisma/client') as typeof import('./generated/prisma/client');
      const { PrismaPg } = require('@prisma/adapter-pg') as typeof import('@prisma/adapter-pg');
      this.orm = new Client({
        adapter: new PrismaPg(this.pool, {
          disposeExternalPool: false, // ended below, with or without the client
          onPoolError: () => undefined, // already logged by our listener
          onConnectionError: (e) => log.warn({ msg: 'transaction connection lost', pool: 'database', error: e.message }),
        }),
      });
    }
    return this.orm;
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
  onApplicationShutdown(): Promise<void> {
    return this.$disconnect();
  }

  /** Closes the Prisma client, if it was loaded, and the pool; once, however often it is called. */
  $disconnect(): Promise<void> {
    this.closed ??= (async () => {
      await this.orm?.$disconnect();
      await this.pool.end();
    })();
    return this.closed;
  }
}

/** What a store's statements run on: a transaction from `tx()`, or the service itself (autocommit). */
export type Tx = SqlClient;
