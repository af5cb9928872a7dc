import { z } from 'zod';
import { DecimalString, IdempotencyKey, Identifier, Rfc3339Utc, Sha256Hex } from './primitives';
import { SPEC_VERSION } from './reason-codes';
import { RetryInfo } from './retry-info';

export const AuditReceiptSchema = z.strictObject({
  receiptId: Identifier,
  runId: Identifier,
  causalId: Identifier,
  intentSha256: Sha256Hex,
  durablePosition: DecimalString,
  storeFingerprint: Sha256Hex,
  committedAt: Rfc3339Utc,
});
export type AuditReceipt = z.infer<typeof AuditReceiptSchema>;

export const IntentSignatureSchema = z.strictObject({
  keyId: Identifier,
  value: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9_-]+$/, 'expected unpadded base64url'),
});
export type IntentSignature = z.infer<typeof IntentSignatureSchema>;

// Carries commitments and hashes only: the payload itself never travels on Kafka in clear.
export const IntentMessageSchema = z.strictObject({
  specVersion: z.literal(SPEC_VERSION),
  intentId: Identifier,
  capabilityId: Identifier,
  decisionId: Identifier,
  runId: Identifier,
  causalId: Identifier,
  tenant: Identifier,
  tool: Identifier,
  intentCommitment: Sha256Hex,
  payloadSha256: Sha256Hex,
  effectContextCommitment: Sha256Hex,
  idempotencyKey: IdempotencyKey,
  catalogFingerprint: Sha256Hex,
  receipt: AuditReceiptSchema,
  retry: RetryInfo.optional(),
  signature: IntentSignatureSchema,
});
export type IntentMessage = z.infer<typeof IntentMessageSchema>;

// The signature covers JCS of exactly this shape, so signer and verifier share one definition.
export const UnsignedIntentMessageSchema = IntentMessageSchema.omit({ signature: true });
export type UnsignedIntentMessage = z.infer<typeof UnsignedIntentMessageSchema>;
