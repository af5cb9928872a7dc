import { DecimalString, Sha256Hex } from '@arvis/contracts';

export type ReceiptReason =
  | 'receipt_wrong_type'
  | 'receipt_missing_receipt_id'
  | 'receipt_missing_causal_id'
  | 'receipt_missing_durable_position'
  | 'receipt_missing_store_fingerprint'
  | 'receipt_missing_committed_at'
  | 'receipt_intent_mismatch'
  | 'receipt_run_mismatch'
  | 'receipt_causal_mismatch'
  | 'receipt_store_fingerprint_mismatch';

export interface ExpectedReceipt {
  intentSha256: string;
  runId: string;
  causalId: string;
  storeFingerprint: string;
}

const FIELDS = ['receiptId', 'runId', 'causalId', 'intentSha256', 'durablePosition', 'storeFingerprint', 'committedAt'];

const filled = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Checks the receipt the intent sink returned against the intent it was asked to record, in the
 * order listed in docs/wire-contract.md (audit receipt). Null when the receipt is exact.
 */
export function validateReceipt(receipt: unknown, expected: ExpectedReceipt): ReceiptReason | null {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return 'receipt_wrong_type';
  const r = receipt as Record<string, unknown>;
  const keys = Object.keys(r).sort();
  if (keys.length !== FIELDS.length || !FIELDS.every((f) => keys.includes(f))) return 'receipt_wrong_type';
  if (!filled(r.receiptId)) return 'receipt_missing_receipt_id';
  if (!filled(r.causalId)) return 'receipt_missing_causal_id';
  if (!filled(r.durablePosition) || !DecimalString.safeParse(r.durablePosition).success) return 'receipt_missing_durable_position';
  if (!filled(r.storeFingerprint) || !Sha256Hex.safeParse(r.storeFingerprint).success) return 'receipt_missing_store_fingerprint';
  if (!filled(r.committedAt)) return 'receipt_missing_committed_at';
  if (r.intentSha256 !== expected.intentSha256) return 'receipt_intent_mismatch';
  if (r.runId !== expected.runId) return 'receipt_run_mismatch';
  if (r.causalId !== expected.causalId) return 'receipt_causal_mismatch';
  if (r.storeFingerprint !== expected.storeFingerprint) return 'receipt_store_fingerprint_mismatch';
  return null;
}
