import { createHash } from 'node:crypto';
import { GENESIS_HASH } from '@arvis/crypto';
import { MAIN_JOURNAL_CHAIN } from '@arvis/contracts';

/** The most chains a journal may be split into (ADR 0062); each is one head row. */
export const MAX_JOURNAL_SHARDS = 64;

/**
 * The name of shard `k`'s chain. Shard 0 keeps "main", so a journal migrated from one chain is
 * shard 0 unchanged and every hash it holds still recomputes (the chain name is hashed).
 */
export function chainOfShard(shard: number): string {
  return shard === 0 ? MAIN_JOURNAL_CHAIN : `shard-${shard}`;
}

/**
 * A stable 32-bit key of a (tenant, run): the first four bytes of SHA-256 over the tenant, a NUL
 * and the run id. Stable across processes, machines and releases (never a runtime's own string
 * hash), so every writer of a run picks the same chain and the run's entries stay in one chain's
 * order (ADR 0062). The tenant is part of it: run ids are unique only within a tenant (ADR 0061).
 */
export function shardKeyOf(tenant: string, runId: string): number {
  return createHash('sha256').update(tenant, 'utf8').update('\u0000').update(runId, 'utf8').digest().readUInt32BE(0);
}

/** The shard of a (tenant, run) among `shards` chains. */
export function shardOf(tenant: string, runId: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_JOURNAL_SHARDS) throw new RangeError(`journal shard count ${shards} is not 1..${MAX_JOURNAL_SHARDS}`);
  return shardKeyOf(tenant, runId) % shards;
}

/** What a connection must offer to create heads (a pg Client or Pool). */
interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export type JournalShardsApplied =
  | { ok: true; shards: number; created: number }
  | { ok: false; reason: 'cannot_shrink'; shards: number; configured: number };

/**
 * Gives the journal `shards` chains: creates the missing head rows (at the genesis hash), never
 * removes one. A chain once created holds entries its head vouches for, so the count only grows:
 * a smaller `shards` than the database holds is refused. Run by `npm run migrate`, with the
 * services stopped: a run in flight across a change of the count would continue in another chain.
 */
export async function applyJournalShards(db: Queryable, shards: number): Promise<JournalShardsApplied> {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_JOURNAL_SHARDS) throw new RangeError(`journal shard count ${shards} is not 1..${MAX_JOURNAL_SHARDS}`);
  const have = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM journal_head')).rows[0].n);
  if (have > shards) return { ok: false, reason: 'cannot_shrink', shards: have, configured: shards };
  const wanted = Array.from({ length: shards }, (_, k) => k);
  const { rows } = await db.query<{ shard: number }>(
    `INSERT INTO journal_head (shard, chain, last_seq, last_hash)
     SELECT k, CASE WHEN k = 0 THEN $2::text ELSE 'shard-' || k END, 0, $3::text FROM unnest($1::int[]) k
     ON CONFLICT (shard) DO NOTHING RETURNING shard`,
    [wanted, MAIN_JOURNAL_CHAIN, GENESIS_HASH],
  );
  // Each chain's retention horizon (ADR 0041), which the pruner raises and never creates.
  await db.query(
    `INSERT INTO retention_horizon (chain) SELECT chain FROM journal_head ON CONFLICT (chain) DO NOTHING`,
  );
  return { ok: true, shards, created: rows.length };
}
