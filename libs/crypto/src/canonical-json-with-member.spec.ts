import { CanonicalizationError, canonicalJson, canonicalJsonWithCanonicalMember, canonicalJsonWithMember, compactJsonWithoutMember } from './canonical-json';

// The splice must give byte for byte what canonicalJson gives for the object with the member:
// the authorizer's body hash (the inbox's redelivery check) depends on it.
describe('canonicalJsonWithMember', () => {
  const tricky = {
    causalId: 'c"1\\',
    decisionId: 'd,"identity":"x"}',
    payload: { identity: 'nested', list: [{ a: '}' }, '[', '"\\"'], payload: { z: 1 } },
    riskScore: 0.1,
    runId: '\u20ac\ud83d\ude00',
    tool: 'notes.append',
    '\u00e9': true,
    A: null,
  };

  it.each([
    ['a decision-shaped object with nested look-alike keys and escapes', tricky, 'identity', 'eyJ.a.b'],
    ['a key that sorts first', { b: 1, c: [2] }, 'a', { x: 'y' }],
    ['a key that sorts last', { a: 1, b: { c: 2 } }, 'zz', [1, '2']],
    ['a key sorted by UTF-16 code units, not code points', { '\ufb33': 1, '\ud83d\ude00': 2 }, '\ue000', 3],
    ['an empty object', {}, 'k', 'v'],
    ['a key that is a prefix of another', { ab: 1, abc: 2 }, 'a', 0],
  ])('equals canonicalJson of the object with the member: %s', (_what, object, key, value) => {
    expect(canonicalJsonWithMember(canonicalJson(object), key, value)).toBe(canonicalJson({ ...object, [key]: value }));
  });

  it('refuses a member the object already has, text that is no object, and a value JCS cannot represent', () => {
    expect(() => canonicalJsonWithMember(canonicalJson({ a: 1 }), 'a', 2)).toThrow(CanonicalizationError);
    expect(() => canonicalJsonWithMember('[1]', 'a', 2)).toThrow(CanonicalizationError);
    expect(() => canonicalJsonWithMember('{}', 'a', '\ud800')).toThrow(CanonicalizationError);
    expect(() => canonicalJsonWithMember('{}', '\ud800', 1)).toThrow(CanonicalizationError);
  });
});

describe('canonicalJsonWithCanonicalMember', () => {
  it.each([
    ['an object value sorted last', { capabilityId: 'c', idempotencyKey: 'k' }, 'snapshot', { b: [1, { d: '"}' }], a: '\u20ac' }],
    ['a value sorted first', { b: 1 }, 'a', [true, null, 0.5]],
    ['an empty object', {}, 'k', { x: {} }],
  ])('splices a canonical text as canonicalJson would have written the value: %s', (_what, object, key, value) => {
    expect(canonicalJsonWithCanonicalMember(canonicalJson(object), key, canonicalJson(value))).toBe(canonicalJson({ ...object, [key]: value }));
  });

  it('refuses a member the object already has and text that is no object', () => {
    expect(() => canonicalJsonWithCanonicalMember(canonicalJson({ a: 1 }), 'a', '2')).toThrow(CanonicalizationError);
    expect(() => canonicalJsonWithCanonicalMember('[1]', 'a', '2')).toThrow(CanonicalizationError);
  });
});

describe('compactJsonWithoutMember', () => {
  const object = { a: [1, { signature: '}' }], m: '"signature":1', signature: { keyId: 'k', value: 'v' }, z: { signature: 2 } };

  it.each([
    ['a middle member', object],
    ['the first member', { signature: 1, z: 2 }],
    ['the last member', { a: 1, signature: [1, '"'] }],
    ['the only member', { signature: 'x' }],
  ])('splices the top-level member out of canonical text: %s', (_what, value) => {
    const { signature: _removed, ...rest } = value as Record<string, unknown>;
    expect(compactJsonWithoutMember(canonicalJson(value), 'signature')).toBe(canonicalJson(rest));
  });

  it('finds nothing in text with spaces between members, without the member at its top level, or that is no object', () => {
    expect(compactJsonWithoutMember(JSON.stringify(object, null, 1), 'signature')).toBeUndefined();
    expect(compactJsonWithoutMember(canonicalJson({ a: { signature: 1 }, b: 'signature' }), 'signature')).toBeUndefined();
    expect(compactJsonWithoutMember('["signature",1]', 'signature')).toBeUndefined();
  });
});
