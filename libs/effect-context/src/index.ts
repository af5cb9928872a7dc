// Public surface of @arvis/effect-context; nothing else in this folder is importable.
export { CanonicalizationError, canonicalJson } from './canonical-json';
export { sha256Hex, commitment } from './hash';
export { GENESIS_HASH, chainHash } from './chain-hash';
export { deepFreeze } from './deep-freeze';
export { freezePayload, frozenPayloadFromCanonical, type FrozenPayload } from './frozen-payload';
export { deriveIdempotencyKey } from './idempotency-key';
export { loadEd25519PrivateKey, loadEd25519PublicKey, generateEd25519KeyPair } from './ed25519-keys';
export {
  signCanonical,
  verifyCanonicalSignature,
  type SigningKey,
  type VerificationKeyring,
} from './canonical-signature';
export {
  EFFECT_CONTEXT_FORMAT_VERSION,
  KERNEL_PRINCIPAL,
  buildEffectContext,
  effectContextCommitment,
  diffEffectContext,
  type AuthorizedEffectContext,
  type VerifiedIdentity,
} from './effect-context';
export { INTENT_FORMAT_VERSION, intentCommitmentOf, type IntentCommitmentMaterial } from './intent-commitment';
export { CAPABILITY_FORMAT_VERSION, capabilityCommitmentOf, type CapabilityCommitmentMaterial } from './capability-commitment';
