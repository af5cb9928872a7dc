import type { CapabilityForActivation } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import type { StoredIntent } from './match-stored-intent';

// The intents table as the dispatcher reads it, in one raw statement on the transaction.
const columns = (t: string) => `${t}intent_id AS "intentId", ${t}decision_id AS "decisionId", ${t}capability_id AS "capabilityId", ${t}run_id AS "runId",
  ${t}causal_id AS "causalId", ${t}tenant, ${t}principal, ${t}tool, ${t}process_id AS "processId", ${t}payload_canonical AS "payloadCanonical",
  ${t}payload_sha256 AS "payloadSha256", ${t}effect_context AS "effectContext", ${t}effect_context_commitment AS "effectContextCommitment",
  ${t}idempotency_key AS "idempotencyKey", ${t}catalog_fingerprint AS "catalogFingerprint", ${t}intent_commitment AS "intentCommitment",
  ${t}receipt_id AS "receiptId", ${t}durable_position AS "durablePosition", ${t}store_fingerprint AS "storeFingerprint", ${t}committed_at AS "committedAt"`;

/** The stored intents with these intent ids, or these capability ids (`by`). */
export function loadStoredIntents(tx: Tx, by: 'intent_id' | 'capability_id', ids: readonly string[]): Promise<StoredIntent[]> {
  return tx.$queryRawUnsafe<StoredIntent[]>(`SELECT ${columns('')} FROM intents WHERE ${by} = ANY($1::text[])`, [...ids]);
}

/** A stored intent with its capability row, locked. */
export interface LockedIntent extends StoredIntent {
  /** Its tool's pool when it was committed (ADR 0081): the effect's row records it. */
  pool: string;
  capability: CapabilityForActivation;
  /**
   * A confirmation is reserved by this capability. Reservation happens only in the transaction
   * that mints the capability, so this cannot change before the effect ends; a result without one
   * has no confirmation to release or spend, and its recording skips that statement.
   */
  confirmationReserved: boolean;
}

const LOCK_SQL = `SELECT ${columns('i.')}, i.pool, c.commitment AS "capabilityCommitment", c.snapshot AS "capabilitySnapshot",
    EXISTS (SELECT 1 FROM confirmations f WHERE f.reserved_by = c.capability_id AND f.status = 'reserved') AS "confirmationReserved"
  FROM intents i JOIN capabilities c ON c.capability_id = i.capability_id
  WHERE i.intent_id = ANY($1::text[]) AND i.pool = ANY($2::text[]) ORDER BY c.capability_id FOR UPDATE OF c`;

/**
 * The claim's one read: the stored intents of a slice and their capability rows, the capabilities
 * locked in id order (rows are locked as the sorted output is produced, whatever the join's plan),
 * so two dispatchers holding overlapping slices wait for each other instead of deadlocking, as
 * CapabilityStore.lockInOrder does. An intent without its capability row is not returned: it is
 * refused like an intent that is not stored. So is one of a pool not in `pools` (ADR 0081): its
 * row, payload and capability are neither read nor locked here; its own pool delivers it.
 */
export async function lockStoredIntents(tx: Tx, intentIds: readonly string[], pools: readonly string[]): Promise<LockedIntent[]> {
  if (intentIds.length === 0) return [];
  const rows = await tx.$queryRawUnsafe<(StoredIntent & { pool: string; capabilityCommitment: string; capabilitySnapshot: string | null; confirmationReserved: boolean })[]>(
    LOCK_SQL,
    [...intentIds],
    [...pools],
  );
  return rows.map(({ capabilityCommitment, capabilitySnapshot, ...s }) => ({
    ...s,
    capability: { capabilityId: s.capabilityId, commitment: capabilityCommitment, snapshot: capabilitySnapshot },
  }));
}
