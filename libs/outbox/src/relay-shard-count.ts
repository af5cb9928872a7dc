/**
 * The outbox's shard count is the database's (ADR 0089, 2026-12-05): one count per database, kept
 * in store_identity.relay_shards. Relays with two counts would put one run's rows in two shards
 * under two locks, and two relays could publish one run at once; so every batch reads the count
 * under its shard's lock and goes on only with the count it chose its rows by, and a change of
 * the count waits for every shard's lock. Shard s's lock key is RELAY_LOCK_KEY + s: shard 0 keeps
 * the key of the relay before sharding, so with one shard this is that relay.
 */
export const RELAY_LOCK_KEY = 7_276_873_010;
export const MAX_RELAY_SHARDS = 64;

/**
 * BEGIN, the shard's lock's try and the database's count (constants only, so no parameter), to go
 * before the batch's read in one round trip (pipelined). Three statements: the count's read takes
 * its own snapshot after the lock is held, so it sees any change committed before (a change holds
 * every shard's lock to its commit).
 */
export const beginLockAndCountStatements = (shard: number): string[] => [
  'BEGIN',
  `SELECT pg_try_advisory_xact_lock(${RELAY_LOCK_KEY + shard}) AS ok`,
  'SELECT relay_shards FROM store_identity WHERE id = 1',
];

/** What a connection must offer (a pg Client or Pool). */
interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export interface RelayShardsApplied {
  shards: number;
  previous: number;
}

/**
 * Sets the database's outbox shard count (run by `npm run migrate` with RELAY_SHARDS). In one
 * transaction it takes every shard's lock, waiting for the batches in flight (`lockTimeoutMs` at
 * most: a relay paused inside a batch holds its lock until its lease ends), then writes the count.
 * A relay's next batch reads the new count and adopts it; no batch runs with the old one after.
 */
export async function applyRelayShards(db: Queryable, shards: number, lockTimeoutMs = 60_000): Promise<RelayShardsApplied> {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_RELAY_SHARDS) throw new RangeError(`relay shard count ${shards} is not 1..${MAX_RELAY_SHARDS}`);
  await db.query('BEGIN');
  try {
    await db.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
    const { rows } = await db.query<{ previous: number }>('SELECT relay_shards AS previous FROM store_identity WHERE id = 1 FOR UPDATE');
    if (rows.length === 0) throw new Error('store_identity row missing: run the migrations');
    const previous = rows[0].previous;
    if (previous !== shards) {
      // Every key any count could use, in ascending order (two changes at once cannot deadlock).
      await db.query(`SELECT pg_advisory_xact_lock(k) FROM generate_series(${RELAY_LOCK_KEY}::bigint, ${RELAY_LOCK_KEY + MAX_RELAY_SHARDS - 1}::bigint) AS k`);
      await db.query('UPDATE store_identity SET relay_shards = $1 WHERE id = 1', [shards]);
    }
    await db.query('COMMIT');
    return { shards, previous };
  } catch (e) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
