import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** Lowercase hex SHA-256; strings are hashed as their UTF-8 bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of the RFC 8785 form: the one way this project commits to a JSON value. */
export function commitment(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
