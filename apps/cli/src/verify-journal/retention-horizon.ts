import type { PoolClient } from 'pg';

/**
 * How far retention pruned (ADR 0041): decisions whose final entry is at or below this journal_seq
 * may have lost their intent and capability. '0' when nothing was pruned (or before the migration
 * that keeps it). Read inside the caller's snapshot, with the rows it judges.
 */
export async function readPrunedThrough(client: PoolClient): Promise<string> {
  const { rows } = await client.query<{ s: string | null }>(
    `SELECT CASE WHEN to_regclass('retention_horizon') IS NULL THEN NULL
                 ELSE (SELECT material_through::text FROM retention_horizon WHERE chain = 'main') END AS s`,
  );
  return rows[0].s ?? '0';
}
