import type { Tx } from '@arvis/persistence';
import type { StoredIntent } from './match-stored-intent';

// The intents table as the dispatcher reads it, in one raw statement on the transaction.
const COLUMNS = `intent_id AS "intentId", decision_id AS "decisionId", capability_id AS "capabilityId", run_id AS "runId",
  causal_id AS "causalId", tenant, principal, tool, process_id AS "processId", payload_canonical AS "payloadCanonical",
  payload_sha256 AS "payloadSha256", effect_context AS "effectContext", effect_context_commitment AS "effectContextCommitment",
  idempotency_key AS "idempotencyKey", catalog_fingerprint AS "catalogFingerprint", intent_commitment AS "intentCommitment",
  receipt_id AS "receiptId", durable_position AS "durablePosition", store_fingerprint AS "storeFingerprint", committed_at AS "committedAt"`;

/** The stored intents with these intent ids, or these capability ids (`by`). */
export function loadStoredIntents(tx: Tx, by: 'intent_id' | 'capability_id', ids: readonly string[]): Promise<StoredIntent[]> {
  return tx.$queryRawUnsafe<StoredIntent[]>(`SELECT ${COLUMNS} FROM intents WHERE ${by} = ANY($1::text[])`, [...ids]);
}
