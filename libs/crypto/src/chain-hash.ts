import { canonicalJson } from './canonical-json';
import { sha256Hex } from './hash';

/** prevHash of the first journal entry. */
export const GENESIS_HASH = '0'.repeat(64);

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * docs/wire-contract.md, journal chain: hash = SHA-256(prevHash ‖ JCS(entry without hash)). The entry must not
 * carry `hash` at all (not even undefined): hashing an entry that already contains a hash
 * would make the chain depend on whatever stale value was left there.
 */
export function chainHash(prevHash: string, entryWithoutHash: Record<string, unknown>): string {
  return chainLink(prevHash, entryWithoutHash).hash;
}

/**
 * chainHash and the canonical text it hashed, for a writer that stores that text too: one
 * canonicalisation per entry instead of two (ADR 0049).
 */
export function chainLink(prevHash: string, entryWithoutHash: Record<string, unknown>): { hash: string; canonical: string } {
  if (typeof prevHash !== 'string' || !HEX64.test(prevHash)) {
    throw new Error('chainHash: prevHash must be 64 lowercase hex characters');
  }
  if (entryWithoutHash === null || typeof entryWithoutHash !== 'object' || Array.isArray(entryWithoutHash)) {
    throw new Error('chainHash: entry must be a JSON object');
  }
  if (Object.prototype.hasOwnProperty.call(entryWithoutHash, 'hash')) {
    throw new Error('chainHash: entry still has a `hash` key; remove it before hashing');
  }
  const canonical = canonicalJson(entryWithoutHash);
  return { hash: sha256Hex(prevHash + canonical), canonical };
}
