import { commitment } from '@arvis/crypto';

export const CAPABILITY_FORMAT_VERSION = 1;

export interface CapabilityCommitmentMaterial {
  capabilityId: string;
  intentCommitment: string;
  effectContextCommitment: string;
  /** The authorization snapshot, as minted. */
  snapshot: unknown;
  idempotencyKey: string;
}

/**
 * Binds a capability to its exact invocation (through the intent commitment), its sealed effect
 * context, the authorization snapshot (confirmation included) and the idempotency key. Minted by
 * the authorizer, recomputed by the dispatcher before activation: a change to any of them makes
 * the capability unverifiable.
 */
export function capabilityCommitmentOf(m: CapabilityCommitmentMaterial): string {
  return commitment({
    capabilityFormatVersion: CAPABILITY_FORMAT_VERSION,
    capabilityId: m.capabilityId,
    intentCommitment: m.intentCommitment,
    effectContextCommitment: m.effectContextCommitment,
    snapshot: m.snapshot,
    idempotencyKey: m.idempotencyKey,
  });
}
