import type { IntentMessage } from '@arvis/contracts';
import { intentCommitmentOf, type IntentCommitmentMaterial } from '@arvis/effect-context';

/** The stored intent as the dispatcher reads it (the intents table). */
export interface StoredIntent extends IntentCommitmentMaterial {
  payloadCanonical: string;
  effectContext: unknown;
  intentCommitment: string;
  receiptId: string;
  durablePosition: bigint;
  storeFingerprint: string;
  committedAt: Date;
}

/**
 * Compares a signed message with the stored intent and its receipt. Returns the first mismatch,
 * or null when the message describes exactly the intent the authorizer committed. The receipt's
 * store must be this database, or one an operator rebound it from after a restore (ADR 0036).
 */
export function matchStoredIntent(m: IntentMessage, s: StoredIntent | undefined, storeFingerprint: string | ReadonlySet<string>): string | null {
  if (!s) return 'no stored intent with this intentId';
  const recomputed = intentCommitmentOf(s);
  if (recomputed !== s.intentCommitment) return 'stored intent does not match its own commitment';
  const pairs: [string, unknown, unknown][] = [
    ['intentCommitment', m.intentCommitment, s.intentCommitment],
    ['capabilityId', m.capabilityId, s.capabilityId],
    ['decisionId', m.decisionId, s.decisionId],
    ['runId', m.runId, s.runId],
    ['causalId', m.causalId, s.causalId],
    ['tenant', m.tenant, s.tenant],
    ['tool', m.tool, s.tool],
    ['payloadSha256', m.payloadSha256, s.payloadSha256],
    ['effectContextCommitment', m.effectContextCommitment, s.effectContextCommitment],
    ['idempotencyKey', m.idempotencyKey, s.idempotencyKey],
    ['catalogFingerprint', m.catalogFingerprint, s.catalogFingerprint],
    ['receipt.receiptId', m.receipt.receiptId, s.receiptId],
    ['receipt.intentSha256', m.receipt.intentSha256, s.intentCommitment],
    ['receipt.runId', m.receipt.runId, s.runId],
    ['receipt.causalId', m.receipt.causalId, s.causalId],
    ['receipt.durablePosition', m.receipt.durablePosition, s.durablePosition.toString()],
    ['receipt.storeFingerprint', m.receipt.storeFingerprint, s.storeFingerprint],
  ];
  for (const [field, got, want] of pairs) if (got !== want) return `${field} does not match the stored intent`;
  const accepted = typeof storeFingerprint === 'string' ? new Set([storeFingerprint]) : storeFingerprint;
  if (!accepted.has(m.receipt.storeFingerprint)) return 'receipt.storeFingerprint (this database) does not match the stored intent';
  return null;
}
