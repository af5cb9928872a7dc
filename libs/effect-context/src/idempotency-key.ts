import { commitment } from '@arvis/crypto';

export type IdempotencyKeyInput = {
  tool: string;
  payloadSha256: string;
  principal: string;
  tenant: string;
  serviceId: string;
  processId: string;
};

const HEX64 = /^[0-9a-f]{64}$/;
const FIELDS = ['tool', 'principal', 'tenant', 'serviceId', 'processId'] as const;

/**
 * Wire contract: 'idem:' + SHA-256(JCS{v:1, tool, payloadSha256, principal, tenant, serviceId,
 * processId}). The object is rebuilt field by field so that nothing else the caller passes
 * (runId, causalId, attempt, nonce...) can ever leak into the key: a retry must map to the
 * same logical action.
 */
export function deriveIdempotencyKey(input: IdempotencyKeyInput): string {
  for (const field of FIELDS) {
    const v = input[field];
    if (typeof v !== 'string' || v.length === 0) {
      throw new Error(`deriveIdempotencyKey: ${field} must be a non-empty string`);
    }
  }
  // A hash, not the payload itself: catches passing the wrong field.
  if (typeof input.payloadSha256 !== 'string' || !HEX64.test(input.payloadSha256)) {
    throw new Error('deriveIdempotencyKey: payloadSha256 must be 64 lowercase hex characters');
  }
  const { tool, payloadSha256, principal, tenant, serviceId, processId } = input;
  return 'idem:' + commitment({ v: 1, tool, payloadSha256, principal, tenant, serviceId, processId });
}
