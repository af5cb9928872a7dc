import { canonicalJson, canonicalJsonWithCanonicalMember, sha256Hex } from '@arvis/crypto';

export const CAPABILITY_FORMAT_VERSION = 1;

export interface CapabilityCommitmentMaterial {
  capabilityId: string;
  intentCommitment: string;
  effectContextCommitment: string;
  /**
   * The authorization snapshot as minted, in its canonical text: the text the capability row
   * stores, so the authorizer canonicalises the snapshot once and the dispatcher not at all.
   */
  snapshotCanonical: string;
  idempotencyKey: string;
}

/**
 * Binds a capability to its exact invocation (through the intent commitment), its sealed effect
 * context, the authorization snapshot (confirmation included) and the idempotency key. Minted by
 * the authorizer, recomputed by the dispatcher before activation: a change to any of them makes
 * the capability unverifiable. The SHA-256 of the RFC 8785 form of the object of these members
 * (the snapshot's member holding the snapshot itself): the hash capabilities have always had
 * (ADR 0049). A snapshot text that is not exactly the minted canonical text, however equal in
 * meaning, does not verify.
 */
export function capabilityCommitmentOf(m: CapabilityCommitmentMaterial): string {
  const rest = canonicalJson({
    capabilityFormatVersion: CAPABILITY_FORMAT_VERSION,
    capabilityId: m.capabilityId,
    intentCommitment: m.intentCommitment,
    effectContextCommitment: m.effectContextCommitment,
    idempotencyKey: m.idempotencyKey,
  });
  return sha256Hex(canonicalJsonWithCanonicalMember(rest, 'snapshot', m.snapshotCanonical));
}
