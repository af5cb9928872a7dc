import { deepFreeze } from './deep-freeze';

describe('deepFreeze', () => {
  it('freezes nested objects and arrays and returns the same reference', () => {
    const value = { a: { b: [1, { c: 2 }] } };
    const frozen = deepFreeze(value);
    expect(frozen).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
  });

  it('handles cycles and primitives', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => deepFreeze(cyclic)).not.toThrow();
    expect(Object.isFrozen(cyclic)).toBe(true);
    expect(deepFreeze(5)).toBe(5);
    expect(deepFreeze(null)).toBe(null);
  });

  it('freezes children of an object that was already shallow-frozen', () => {
    const inner = { x: 1 };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(true);
  });

  it('leaves typed arrays alone instead of throwing', () => {
    const value = { bytes: new Uint8Array([1, 2]) };
    expect(() => deepFreeze(value)).not.toThrow();
    expect(Object.isFrozen(value)).toBe(true);
  });

  it('makes writes fail in strict mode', () => {
    const value = deepFreeze({ a: { b: 1 } });
    expect(() => {
      (value.a as { b: number }).b = 2;
    }).toThrow(TypeError);
  });
});
