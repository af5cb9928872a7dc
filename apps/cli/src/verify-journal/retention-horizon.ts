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

/**
 * The journal's chains (ADR 0062): those with a head row, by shard (main first), then any chain
 * rows name that has no head (a forged or orphaned chain, which the walk reports).
 */
export async function chainsOf(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ chain: string }>(
    `SELECT chain FROM (SELECT chain, shard FROM journal_head
                        UNION ALL
                        SELECT DISTINCT j.chain, NULL::int FROM journal j WHERE NOT EXISTS (SELECT 1 FROM journal_head h WHERE h.chain = j.chain)) c
     ORDER BY shard NULLS LAST, chain`,
  );
  return rows.map((r) => r.chain);
}

/** Each chain's retention horizon (ADR 0041, per chain since ADR 0062); empty before the migration that keeps it. */
export async function readPrunedThroughByChain(client: PoolClient): Promise<Map<string, bigint>> {
  const exists = (await client.query<{ t: string | null }>(`SELECT to_regclass('retention_horizon')::text AS t`)).rows[0].t;
  if (exists === null) return new Map();
  const { rows } = await client.query<{ chain: string; s: string }>('SELECT chain, material_through::text AS s FROM retention_horizon');
  return new Map(rows.map((r) => [r.chain, BigInt(r.s)]));
}
