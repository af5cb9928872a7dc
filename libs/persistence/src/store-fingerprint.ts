import { sha256Hex } from '@arvis/crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PrismaService, type Tx } from './prisma.service';
import type { PrismaClient } from './generated/prisma/client';

/**
 * Identity of this database: the cluster's system identifier (differs between clusters, stable
 * across restarts), the database's name, and a seed written when our schema was created
 * (differs between databases, survives restarts).
 */
export const STORE_IDENTITY_SQL = `
  SELECT (SELECT system_identifier::text FROM pg_control_system()) AS system_identifier,
         (SELECT seed FROM store_identity WHERE id = 1) AS seed,
         current_database() AS datname`;

export interface StoreIdentityRow {
  system_identifier: string;
  seed: string | null;
  datname: string;
}

export function fingerprintOf(r: StoreIdentityRow | undefined): string {
  if (!r?.seed) throw new Error('store_identity seed missing: run the migrations');
  return sha256Hex(`arvis-store:v1:${r.system_identifier}:${r.datname}:${r.seed}`);
}

export async function readStoreFingerprint(db: PrismaClient | Tx): Promise<string> {
  const rows = await db.$queryRawUnsafe<StoreIdentityRow[]>(STORE_IDENTITY_SQL);
  return fingerprintOf(rows[0]);
}

/**
 * This database's fingerprint, read once at start-up (the start order runs onModuleInit before
 * any consumer). Reading it earlier is a fault (retried), never a mismatch: a message must not be
 * judged against a value that has not been loaded.
 */
@Injectable()
export class StoreFingerprint implements OnModuleInit {
  private loaded?: string;

  constructor(private readonly prisma: PrismaService) {}

  async onModuleInit(): Promise<void> {
    this.loaded = await readStoreFingerprint(this.prisma);
  }

  get value(): string {
    if (!this.loaded) throw new Error('store fingerprint not loaded yet: the service has not finished starting');
    return this.loaded;
  }
}
