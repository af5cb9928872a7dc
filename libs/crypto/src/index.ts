// Public surface of @arvis/crypto: canonical JSON (RFC 8785), SHA-256 commitments, the journal's
// chain hash, deep freezing, and Ed25519 signatures over canonical JSON (checked on the calling thread or libuv's threadpool). No domain types here.
export { CanonicalizationError, canonicalJson, canonicalJsonWithCanonicalMember, canonicalJsonWithMember, compactJsonWithoutMember } from './canonical-json';
export { sha256Hex, commitment } from './hash';
export { GENESIS_HASH, chainHash, chainLink } from './chain-hash';
export { deepFreeze } from './deep-freeze';
export { loadEd25519PrivateKey, loadEd25519PublicKey, generateEd25519KeyPair } from './ed25519-keys';
export {
  signCanonical,
  signCanonicalText,
  verifyCanonicalSignature,
  verifyCanonicalSignatureOffThread,
  type SignatureVerification,
  type SigningKey,
  type VerificationKeyring,
} from './canonical-signature';
