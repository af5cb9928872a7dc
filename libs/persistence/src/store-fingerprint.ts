import { sha256Hex } from '@arvis/effect-context';
import type { Tx } from './prisma.service';
import type { PrismaClient } from './generated/prisma/client';

/**
 * Identity of this database: the cluster's system identifier (differs between clusters, stable
 * across restarts) and a seed written when our schema was created (differs between databases).
 */
export async function readStoreFingerprint(db: PrismaClient | Tx): Promise<string> {
  const rows = await db.$queryRaw<{ system_identifier: string; seed: string; datname: string }[]>`
    SELECT (SELECT system_identifier::text FROM pg_control_system()) AS system_identifier,
           (SELECT seed FROM store_identity WHERE id = 1) AS seed,
           current_database() AS datname`;
  const r = rows[0];
  if (!r?.seed) throw new Error('store_identity seed missing: run the migrations');
  return sha256Hex(`arvis-store:v1:${r.system_identifier}:${r.datname}:${r.seed}`);
}
