// Public surface of @arvis/crypto: canonical JSON (RFC 8785), SHA-256 commitments, the journal's
// chain hash, deep freezing, and Ed25519 signatures over canonical JSON. No domain types here.
export { CanonicalizationError, canonicalJson, canonicalJsonWithCanonicalMember, canonicalJsonWithMember, compactJsonWithoutMember } from './canonical-json';
export { sha256Hex, commitment } from './hash';
export { GENESIS_HASH, chainHash, chainLink } from './chain-hash';
export { deepFreeze } from './deep-freeze';
export { loadEd25519PrivateKey, loadEd25519PublicKey, generateEd25519KeyPair } from './ed25519-keys';
export {
  signCanonical,
  signCanonicalText,
  verifyCanonicalSignature,
  type SigningKey,
  type VerificationKeyring,
} from './canonical-signature';
