import { z } from 'zod';
import { clipText } from './clip-text';
import { SPEC_VERSION } from './reason-codes';

export type InboundReasonCode = 'malformed_message' | 'payload_too_large' | 'unsupported_spec_version';

export type InboundResult<T> =
  | { ok: true; value: T }
  | { ok: false; reasonCode: InboundReasonCode; detail: string };

export interface ParseInboundOptions {
  maxBytes: number;
  /** Deepest allowed nesting of objects/arrays; recursive consumers (JCS, hashing) need a bound. */
  maxDepth?: number;
  /** Most keys in any one object (canonicalisation sorts them; schemas walk them). */
  maxKeys?: number;
  /** Most elements in any one array. */
  maxArrayLength?: number;
}

export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_MAX_KEYS = 1000;
export const DEFAULT_MAX_ARRAY_LENGTH = 10000;
const MAX_DETAIL = 500;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER); // 16 digits

// fatal: a lossy decode would replace bad bytes with U+FFFD and change what gets hashed.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const clip = (s: string, max = MAX_DETAIL): string => clipText(s, max);

function refuse<T>(reasonCode: InboundReasonCode, detail: string): InboundResult<T> {
  return { ok: false, reasonCode, detail: clip(detail) };
}

/** True when the JSON number token's value is beyond ±(2^53-1), whatever notation it uses. */
export function exceedsSafeInteger(token: string): boolean {
  // Fast path for the common case: without an exponent, fewer than 16 characters cannot reach 2^53.
  if (token.length < MAX_SAFE_DIGITS.length && token.indexOf('e') < 0 && token.indexOf('E') < 0) return false;
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (m === null) return false;
  const [, intPart, frac = '', exp] = m;

  // Normalise to digits × 10^e with no leading or trailing zeros; exact, no floating point.
  let digits = (intPart + frac).replace(/^0+/, '');
  if (digits === '') return false;
  let e = (exp === undefined ? 0 : Number(exp)) - frac.length;
  const trimmed = digits.replace(/0+$/, '');
  e += digits.length - trimmed.length;
  digits = trimmed;

  const integerDigits = digits.length + e; // may be ±Infinity for absurd exponents, which compares correctly
  if (integerDigits !== MAX_SAFE_DIGITS.length) return integerDigits > MAX_SAFE_DIGITS.length;
  if (e >= 0) return digits + '0'.repeat(e) > MAX_SAFE_DIGITS;
  // A non-zero fraction remains, so an integer part equal to the maximum already exceeds it.
  return digits.slice(0, MAX_SAFE_DIGITS.length) >= MAX_SAFE_DIGITS;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isNumberChar = (c: number): boolean =>
  isDigit(c) || c === 43 /* + */ || c === 45 /* - */ || c === 46 /* . */ || c === 69 /* E */ || c === 101; /* e */

interface Container {
  object: boolean;
  /** Commas seen at this level: members or elements = commas + 1 once it holds any. */
  commas: number;
  /** An object's keys so far, decoded (so "a" and "\u0061" are one key). */
  keys?: Set<string>;
}

interface ScanLimits {
  maxDepth: number;
  maxKeys: number;
  maxArrayLength: number;
}

/** Index of the quote that closes the string opening at `i`. */
function stringEnd(text: string, i: number): number {
  // indexOf jumps over long strings (tokens, base64) far faster than a per-character loop.
  let j = text.indexOf('"', i + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 92 /* \ */) backslashes += 1;
    if (backslashes % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** The key a string token spells, when the token (from i to j) is an object key; else null. */
function keyAt(text: string, i: number, j: number): string | null {
  let k = j + 1;
  while (k < text.length && isSpace(text.charCodeAt(k))) k += 1;
  if (text.charCodeAt(k) !== 58 /* : */) return null;
  const token = text.slice(i, j + 1);
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

/**
 * One pass over text that JSON.parse has already accepted, looking for what JSON.parse hides:
 * integers it silently rounds, duplicate keys it silently collapses (last one wins), `__proto__`
 * keys that schema parsing silently drops (so the hash would cover a different payload than the
 * one sent), and sizes that would make an
 * unauthenticated message expensive (nesting depth, keys per object, array length) before
 * anything else looks at it. String contents are skipped, so digits inside strings are never numbers.
 */
function scanJsonText(text: string, limits: ScanLimits): string | null {
  const open: Container[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const j = stringEnd(text, i);
      const top = open[open.length - 1];
      const key = top?.object ? keyAt(text, i, j) : null;
      if (key !== null) {
        if (key === '__proto__') return 'the key "__proto__" is not allowed';
        // JSON.parse keeps the last of two equal keys; what was signed or meant may be the first.
        top.keys ??= new Set();
        if (top.keys.has(key)) return `duplicate key ${clip(JSON.stringify(key), 100)} in one object`;
        top.keys.add(key);
      }
      i = j + 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      open.push({ object: c === 123, commas: 0 });
      if (open.length > limits.maxDepth) return `nesting deeper than ${limits.maxDepth} levels`;
      i += 1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      open.pop();
      i += 1;
    } else if (c === 44 /* , */) {
      const top = open[open.length - 1];
      top.commas += 1;
      if (top.object && top.commas + 1 > limits.maxKeys) return `an object has more than ${limits.maxKeys} keys`;
      if (!top.object && top.commas + 1 > limits.maxArrayLength) return `an array has more than ${limits.maxArrayLength} elements`;
      i += 1;
    } else if (c === 45 /* - */ || isDigit(c)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j += 1;
      const token = text.slice(i, j);
      if (exceedsSafeInteger(token)) {
        return `number ${clip(token, 60)} exceeds 2^53-1 and cannot be represented exactly; send it as a decimal string`;
      }
      i = j;
    } else {
      i += 1;
    }
  }
  return null;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts: string[] = [];
  for (const issue of issues) {
    const where = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const others = issue.keys.filter((k) => k !== 'retry');
      if (issue.keys.includes('retry')) parts.push(`${where}: retry is set by the system only`);
      if (others.length > 0) parts.push(`${where}: unrecognized key(s) ${others.map((k) => JSON.stringify(k)).join(', ')}`);
    } else {
      parts.push(`${where}: ${issue.message}`);
    }
    if (parts.join('; ').length > MAX_DETAIL) break;
  }
  return `schema violation: ${parts.join('; ')}`;
}

/**
 * Turns raw Kafka bytes into a validated message, or a reason code fit for a DLQ record.
 * Never throws for bad input: a consumer must be able to dead-letter anything and move on.
 */
export function parseInbound<S extends z.ZodTypeAny>(
  schema: S,
  raw: Buffer | null | undefined,
  opts: ParseInboundOptions,
): InboundResult<z.output<S>> {
  if (raw === null || raw === undefined || raw.byteLength === 0) {
    return refuse('malformed_message', 'empty message');
  }
  if (raw.byteLength > opts.maxBytes) {
    return refuse('payload_too_large', `message is ${raw.byteLength} bytes; the limit is ${opts.maxBytes}`);
  }

  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return refuse('malformed_message', 'message is not valid UTF-8');
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return refuse('malformed_message', `invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }

  const hidden = scanJsonText(text, {
    maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxKeys: opts.maxKeys ?? DEFAULT_MAX_KEYS,
    maxArrayLength: opts.maxArrayLength ?? DEFAULT_MAX_ARRAY_LENGTH,
  });
  if (hidden !== null) return refuse('malformed_message', hidden);

  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return refuse('malformed_message', 'top level must be a JSON object');
  }

  // Checked before the schema so a newer producer gets a version error, not a list of field errors.
  if (!Object.hasOwn(parsed, 'specVersion')) {
    return refuse('malformed_message', 'specVersion is missing');
  }
  const version = (parsed as { specVersion: unknown }).specVersion;
  if (version !== SPEC_VERSION) {
    return refuse(
      'unsupported_spec_version',
      `specVersion ${clip(JSON.stringify(version), 40)} is not supported; this service accepts ${SPEC_VERSION}`,
    );
  }

  try {
    const result = schema.safeParse(parsed);
    if (result.success) return { ok: true, value: result.data as z.output<S> };
    return refuse('malformed_message', formatIssues(result.error.issues));
  } catch (err) {
    // A throwing refinement is a bug in the schema, but the consumer must still move on.
    return refuse('malformed_message', `schema check failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
