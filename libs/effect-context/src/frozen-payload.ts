import { CanonicalizationError, canonicalJson } from '@arvis/crypto';
import { deepFreeze } from '@arvis/crypto';
import { sha256Hex } from '@arvis/crypto';

/**
 * A tool payload fixed at authorization time (docs/architecture.md, step 3): one canonical byte string and
 * its SHA-256 feed every later check. `value` is re-parsed from `canonical`, so it is exactly
 * what was hashed and shares nothing with the caller's object.
 */
export type FrozenPayload = {
  readonly canonical: string;
  readonly sha256: string;
  readonly value: Readonly<Record<string, unknown>>;
};

export type FreezePayloadResult =
  | { ok: true; frozen: FrozenPayload }
  | { ok: false; reasonCode: 'invalid_effect_payload'; detail: string };

/**
 * Payload-only rules on top of JCS: the root is an object, and integers stay within 2^53-1
 * so every consumer (JS, Postgres jsonb, other languages) reads the same number.
 */
function assertPayloadRules(value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new CanonicalizationError(`integer ${value} is beyond ±(2^53-1)`, path || '/');
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertPayloadRules(item, `${path}/${i}`));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    assertPayloadRules(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

function isJsonObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function build(canonical: string): FrozenPayload {
  const value = deepFreeze(JSON.parse(canonical) as Record<string, unknown>);
  return Object.freeze({ canonical, sha256: sha256Hex(canonical), value });
}

/** Freezes an untrusted payload; never throws, refusals carry `invalid_effect_payload`. */
export function freezePayload(payload: unknown): FreezePayloadResult {
  try {
    if (!isJsonObject(payload)) {
      const kind = payload === null ? 'null' : Array.isArray(payload) ? 'array' : typeof payload;
      return { ok: false, reasonCode: 'invalid_effect_payload', detail: `payload must be a JSON object, got ${kind}` };
    }
    // canonicalJson first: it rejects cycles and exotic values before the payload walk recurses.
    const canonical = canonicalJson(payload);
    const frozen = build(canonical);
    assertPayloadRules(frozen.value, '');
    return { ok: true, frozen };
  } catch (err) {
    // Getters or proxies in the input may throw anything; the contract is a refusal, not a crash.
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, reasonCode: 'invalid_effect_payload', detail };
  }
}

/**
 * Rebuilds a FrozenPayload from stored canonical text (e.g. the dispatcher reading the intent
 * outbox). Throws CanonicalizationError unless the text is exactly the canonical form of a
 * valid payload, so a tampered or hand-edited row cannot hash differently from what it says.
 */
export function frozenPayloadFromCanonical(canonical: string): FrozenPayload {
  if (typeof canonical !== 'string') throw new CanonicalizationError('stored payload must be a string');
  let parsed: unknown;
  try {
    parsed = JSON.parse(canonical);
  } catch {
    throw new CanonicalizationError('stored payload is not valid JSON');
  }
  if (!isJsonObject(parsed)) throw new CanonicalizationError('stored payload is not a JSON object');
  assertPayloadRules(parsed, '');
  // Catches reordered keys, whitespace, other number spellings, escapes and duplicate keys.
  if (canonicalJson(parsed) !== canonical) throw new CanonicalizationError('stored payload is not in RFC 8785 canonical form');
  return build(canonical);
}
