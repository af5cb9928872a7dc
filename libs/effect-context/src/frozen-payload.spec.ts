import { CanonicalizationError } from '@arvis/crypto';
import { freezePayload, frozenPayloadFromCanonical } from './frozen-payload';
import { sha256Hex } from '@arvis/crypto';

function freezeOk(payload: unknown) {
  const result = freezePayload(payload);
  if (!result.ok) throw new Error(`expected ok, got ${result.detail}`);
  return result.frozen;
}

describe('freezePayload', () => {
  it('returns the canonical text, its SHA-256 and the re-parsed value', () => {
    const frozen = freezeOk({ to: 'a@b.c', amount: 1250, tags: ['x'] });
    expect(frozen.canonical).toBe('{"amount":1250,"tags":["x"],"to":"a@b.c"}');
    expect(frozen.sha256).toBe(sha256Hex(frozen.canonical));
    expect(frozen.value).toEqual({ amount: 1250, tags: ['x'], to: 'a@b.c' });
  });

  it('is immune to later mutation of the source object', () => {
    const source = { nested: { list: [1, 2] }, name: 'a' };
    const frozen = freezeOk(source);
    source.name = 'b';
    source.nested.list.push(3);
    expect(frozen.value).toEqual({ nested: { list: [1, 2] }, name: 'a' });
    expect(frozen.value).not.toBe(source);
    expect(frozen.canonical).toBe('{"name":"a","nested":{"list":[1,2]}}');
  });

  it('freezes the value deeply, and the wrapper itself', () => {
    const frozen = freezeOk({ nested: { list: [{ x: 1 }] } });
    const nested = frozen.value.nested as { list: { x: number }[] };
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.isFrozen(frozen.value)).toBe(true);
    expect(Object.isFrozen(nested)).toBe(true);
    expect(Object.isFrozen(nested.list)).toBe(true);
    expect(Object.isFrozen(nested.list[0])).toBe(true);
    expect(() => {
      nested.list[0].x = 2;
    }).toThrow(TypeError);
  });

  it('gives the same hash for the same content in any key order', () => {
    expect(freezeOk({ a: 1, b: 2 }).sha256).toBe(freezeOk({ b: 2, a: 1 }).sha256);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['array', [1]],
    ['string', '{"a":1}'],
    ['number', 1],
    ['undefined', undefined],
    ['Date', new Date(0)],
    ['Map', new Map([['a', 1]])],
  ])('refuses a non-object payload: %s', (_label, payload) => {
    const result = freezePayload(payload);
    expect(result).toMatchObject({ ok: false, reasonCode: 'invalid_effect_payload' });
  });

  it.each<[string, unknown]>([
    ['2^53', { n: 2 ** 53 }],
    ['-(2^53)', { n: -(2 ** 53) }],
    ['1e300', { n: 1e300 }],
    ['nested unsafe integer', { a: [{ b: 9007199254740993 }] }],
  ])('refuses an unsafe integer: %s', (_label, payload) => {
    const result = freezePayload(payload);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).toMatch(/2\^53/);
  });

  it('accepts the safe integer limits and finite fractions', () => {
    expect(freezePayload({ max: 2 ** 53 - 1, min: -(2 ** 53 - 1), f: 0.1 }).ok).toBe(true);
  });

  it.each<[string, unknown]>([
    ['undefined member', { a: undefined }],
    ['NaN', { a: NaN }],
    ['Infinity', { a: Infinity }],
    ['bigint', { a: 1n }],
    ['function', { a: () => 1 }],
    ['Date member', { a: new Date(0) }],
    ['lone surrogate', { a: '\ud800' }],
  ])('refuses what JCS cannot represent: %s', (_label, payload) => {
    expect(freezePayload(payload)).toMatchObject({ ok: false, reasonCode: 'invalid_effect_payload' });
  });

  it('never throws, even for cycles or throwing getters', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const trap = {
      get boom(): never {
        throw new Error('getter exploded');
      },
    };
    expect(freezePayload(cyclic)).toMatchObject({ ok: false, reasonCode: 'invalid_effect_payload' });
    expect(freezePayload(trap)).toMatchObject({ ok: false, detail: 'getter exploded' });
  });
});

describe('frozenPayloadFromCanonical', () => {
  it('rebuilds the same FrozenPayload from stored canonical text', () => {
    const original = freezeOk({ b: [1, 'x'], a: { c: null } });
    const rebuilt = frozenPayloadFromCanonical(original.canonical);
    expect(rebuilt.canonical).toBe(original.canonical);
    expect(rebuilt.sha256).toBe(original.sha256);
    expect(rebuilt.value).toEqual(original.value);
    expect(Object.isFrozen(rebuilt.value.a)).toBe(true);
  });

  it.each([
    ['whitespace', '{"a": 1}'],
    ['unsorted keys', '{"b":1,"a":2}'],
    ['non-canonical number', '{"a":1.0}'],
    ['non-canonical escape', '{"a":"\\u0041"}'],
    ['escaped solidus', '{"a":"\\/"}'],
    ['duplicate key', '{"a":1,"a":1}'],
    ['not JSON', '{a:1}'],
    ['array', '[1]'],
    ['unsafe integer', '{"a":9007199254740993}'],
    ['unsafe integer (representable)', '{"a":9007199254740992}'],
  ])('throws for %s', (_label, text) => {
    expect(() => frozenPayloadFromCanonical(text)).toThrow(CanonicalizationError);
  });
});
