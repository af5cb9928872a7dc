import canonicalize from 'canonicalize';

/**
 * Thrown when a value has no RFC 8785 (JCS) form. Hashes and signatures are computed over
 * canonical text, so anything that JSON.stringify would silently drop, coerce or reshape
 * must be refused instead: two different inputs must never share one commitment.
 */
export class CanonicalizationError extends Error {
  constructor(
    message: string,
    /** JSON-pointer-like path of the offending value ('' = the root). */
    readonly path: string = '',
  ) {
    super(path ? `${message} at ${path}` : message);
    this.name = 'CanonicalizationError';
  }
}

// In a /u regex a well-formed surrogate pair is one code point, so this only matches lone
// surrogates, which I-JSON (RFC 7493, required by RFC 8785 §3.1) forbids.
const LONE_SURROGATE = /\p{Cs}/u;

// The path is kept as segments and turned into a JSON pointer only when a value is refused:
// every commitment walks its value, and building pointer strings for every node cost more than
// the walk itself.
type Path = (string | number)[];

function pointer(path: Path): string {
  return path.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function refuse(message: string, path: Path): never {
  throw new CanonicalizationError(message, pointer(path));
}

function assertString(s: string, path: Path, what: string): void {
  if (LONE_SURROGATE.test(s)) refuse(`${what} contains a lone surrogate`, path);
}

/**
 * Walks the value and refuses everything JCS cannot represent. The `canonicalize` package is
 * lenient (drops undefined members, turns undefined array items into null, calls toJSON on
 * Dates, recurses forever on cycles), so it only ever sees values that passed this check.
 */
function assertJcsValue(value: unknown, path: Path, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      assertString(value, path, 'string');
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(`non-finite number ${value}`, path);
      return;
    case 'undefined':
      refuse('undefined is not JSON', path);
    case 'bigint':
      refuse('bigint is not JSON (use a decimal string)', path);
    case 'function':
      refuse('function is not JSON', path);
    case 'symbol':
      refuse('symbol is not JSON', path);
  }
  if (value === null) return;
  const obj = value as object;
  if (ancestors.has(obj)) refuse('cyclic reference', path);
  if (Array.isArray(obj)) {
    if (Object.getPrototypeOf(obj) !== Array.prototype) {
      refuse('array subclass is not plain JSON', path);
    }
    ancestors.add(obj);
    for (let i = 0; i < obj.length; i++) {
      // A hole reads as undefined and is refused like one.
      path.push(i);
      assertJcsValue(obj[i], path, ancestors);
      path.pop();
    }
    ancestors.delete(obj);
    return;
  }
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
    refuse(`non-plain object (${name}) is not JSON`, path);
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) {
    refuse('symbol-keyed property is not JSON', path);
  }
  ancestors.add(obj);
  for (const key of Object.keys(obj)) {
    path.push(key);
    assertString(key, path, 'property name');
    assertJcsValue((obj as Record<string, unknown>)[key], path, ancestors);
    path.pop();
  }
  ancestors.delete(obj);
}

/**
 * RFC 8785 JSON Canonicalization Scheme: members sorted by UTF-16 code units, ECMAScript number
 * form, minimal string escaping, no whitespace. Throws CanonicalizationError for any value
 * JCS cannot represent (see assertJcsValue).
 */
export function canonicalJson(value: unknown): string {
  assertJcsValue(value, [], new Set());
  const text = canonicalize(value);
  // Unreachable after the walk above; kept so a future package change fails loudly.
  if (typeof text !== 'string') throw new CanonicalizationError('value has no JSON form');
  return text;
}

/** The end (exclusive) of the JSON string that starts at `i` (a '"'). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) throw new CanonicalizationError('unterminated string in canonical text');
    let backslashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * The canonical text of `{...object, [key]: value}`, from the object's canonical text: the member
 * is inserted where RFC 8785 sorts it (keys by UTF-16 code units) by a scan of the top level, so a
 * caller that needs the canonical text of an object with and without one member canonicalises it
 * once (ADR 0049). Throws if the object already has that member or the text is not an object.
 */
export function canonicalJsonWithMember(canonicalObject: string, key: string, value: unknown): string {
  // A string's JCS form is ECMAScript's JSON.stringify of it (RFC 8785 3.2.2.2) once lone
  // surrogates are refused: no walk is needed for a string value (a token).
  if (typeof value === 'string') assertString(value, [key], 'string');
  return canonicalJsonWithCanonicalMember(canonicalObject, key, typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value));
}

/** A top-level member of a compact object's text: where it starts, its key, and its end (the comma or closing brace after it). */
interface MemberSpan {
  start: number;
  key: string;
  end: number;
}

/**
 * The top-level members of a compact JSON object's text (no whitespace between members), in
 * order; undefined if the text is not an object. Keys are found by a scan that skips strings and
 * nested values, so look-alike keys inside them are not members.
 */
function topLevelMembers(text: string): MemberSpan[] | undefined {
  if (text.length < 2 || text[0] !== '{' || text[text.length - 1] !== '}') return undefined;
  const members: MemberSpan[] = [];
  let depth = 0;
  let memberStart = 1;
  let key: string | undefined;
  for (let i = 1; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (depth === 0 && i === memberStart && text.charCodeAt(end) === 0x3a) key = JSON.parse(text.slice(i, end)) as string;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 0) {
      if (key !== undefined) members.push({ start: memberStart, key, end: i });
      key = undefined;
      memberStart = i + 1;
    }
  }
  if (key !== undefined) members.push({ start: memberStart, key, end: text.length - 1 });
  return members;
}

/**
 * As canonicalJsonWithMember, for a value whose canonical text the caller has already (a payload
 * canonicalised once and both stored and committed to, ADR 0049). The value's text is spliced in
 * unchecked: text that is not the value's canonical form gives other bytes, and so another hash,
 * than the same value canonicalised here would.
 */
export function canonicalJsonWithCanonicalMember(canonicalObject: string, key: string, canonicalValue: string): string {
  assertString(key, [key], 'property name');
  const member = `${JSON.stringify(key)}:${canonicalValue}`;
  const members = topLevelMembers(canonicalObject);
  if (members === undefined) throw new CanonicalizationError('canonical text is not an object');
  if (members.length === 0) return `{${member}}`;
  for (const m of members) {
    if (m.key === key) throw new CanonicalizationError(`object already has member ${JSON.stringify(key)}`);
    // JavaScript compares strings by UTF-16 code units, as RFC 8785 sorts keys.
    if (key < m.key) return `${canonicalObject.slice(0, m.start)}${member},${canonicalObject.slice(m.start)}`;
  }
  return `${canonicalObject.slice(0, -1)},${member}}`;
}

/**
 * The text of a compact JSON object without its top-level member `key`, spliced out where it
 * stands; undefined if the text is not a compact object (no whitespace between members) or has
 * no such member at its top level. The inverse of canonicalJsonWithCanonicalMember on canonical
 * text; on any other text it is only a candidate, which a check of its own (a signature over
 * those bytes) must accept.
 */
export function compactJsonWithoutMember(text: string, key: string): string | undefined {
  const members = topLevelMembers(text);
  const m = members?.find((x) => x.key === key);
  if (m === undefined) return undefined;
  if (m.end < text.length - 1) return `${text.slice(0, m.start)}${text.slice(m.end + 1)}`;
  // The last member: the comma before it goes with it.
  return m.start === 1 ? '{}' : `${text.slice(0, m.start - 1)}}`;
}
