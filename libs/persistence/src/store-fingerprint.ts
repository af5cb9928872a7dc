import { sha256Hex } from '@arvis/crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Database, type Tx } from './database';
import type { PrismaClient } from './generated/prisma/client';
import { untilDatabaseAnswers } from './pg-errors';

const log = new Logger('StoreFingerprint');

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
 * The fingerprints whose receipts this store accepts: its own, and those an operator declared it
 * the continuation of after a restore (`store_rebinds`, ADR 0036), transitively (restored twice).
 */
export const ACCEPTED_STORES_SQL = `
  WITH RECURSIVE accepted(fp) AS (
    SELECT $1::text
    UNION
    SELECT r.from_fingerprint FROM store_rebinds r JOIN accepted a ON r.to_fingerprint = a.fp
  )
  SELECT fp FROM accepted`;

export async function readAcceptedStores(db: PrismaClient | Tx, own: string): Promise<Set<string>> {
  const rows = await db.$queryRawUnsafe<{ fp: string }[]>(ACCEPTED_STORES_SQL, own);
  return new Set([own, ...rows.map((r) => r.fp)]);
}

/** Rebinds are rare: a receipt of an unknown store makes a reader look again at most this often. */
const ACCEPTED_REFRESH_MS = 2000;

/**
 * This database's fingerprint, read once at start-up (the start order runs onModuleInit before
 * any consumer). Reading it earlier is a fault (retried), never a mismatch: a message must not be
 * judged against a value that has not been loaded.
 */
@Injectable()
export class StoreFingerprint implements OnModuleInit {
  private loaded?: string;
  private acceptedStores = new Set<string>();
  private refreshedAt = 0;

  constructor(private readonly db: Database) {}

  async onModuleInit(): Promise<void> {
    await untilDatabaseAnswers(
      async () => {
        this.loaded = await readStoreFingerprint(this.db);
        this.acceptedStores = await readAcceptedStores(this.db, this.loaded);
      },
      (attempt, e) => log.warn({ msg: 'database not answering at start-up, waiting', what: 'store fingerprint', attempt, error: e.message }),
    );
    this.refreshedAt = Date.now();
  }

  /** This store's fingerprint and those it was rebound from (as last read). */
  get accepted(): ReadonlySet<string> {
    return this.acceptedStores;
  }

  /**
   * Reads the rebinds again, unless that was done moments ago: called when a receipt names a store
   * not accepted, so a rebind takes effect without a restart.
   */
  async refreshAccepted(db: PrismaClient | Tx): Promise<void> {
    if (Date.now() - this.refreshedAt < ACCEPTED_REFRESH_MS) return;
    this.acceptedStores = await readAcceptedStores(db, this.value);
    this.refreshedAt = Date.now();
  }

  get value(): string {
    if (!this.loaded) throw new Error('store fingerprint not loaded yet: the service has not finished starting');
    return this.loaded;
  }
}
