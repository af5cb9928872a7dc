// Public surface of @arvis/effect-context; nothing else in this folder is importable.
export { freezePayload, frozenPayloadFromCanonical, type FrozenPayload } from './frozen-payload';
export { deriveIdempotencyKey } from './idempotency-key';
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
