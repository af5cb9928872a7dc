import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseSettings } from '@arvis/config';
import { PrismaClient } from './generated/prisma/client';

/** Prisma over the pg driver adapter (no query-engine binary at run time). */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(readonly settings: DatabaseSettings) {
    super({ adapter: new PrismaPg({ connectionString: settings.url, max: settings.poolSize }) });
  }

  /** An interactive transaction with the configured timeout (Prisma's default is 5 s). */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.$transaction(fn, { timeout: this.settings.txTimeoutMs, maxWait: this.settings.txTimeoutMs });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
