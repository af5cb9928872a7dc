import { CanonicalizationError, canonicalJson } from './canonical-json';

// Vectors from RFC 8785 (sections 3.2.2, 3.2.3, 3.2.4 and Appendix B).

function fromIeee754Hex(bits: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

describe('canonicalJson: RFC 8785 vectors', () => {
  it('serialises the RFC sample input (3.2.2) to the exact RFC output (3.2.3)', () => {
    // Parsed from the RFC's own JSON text, so number spellings like 4.50 and 1E30 are exercised.
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalJson(input)).toBe(expected);
  });

  it('produces the RFC 3.2.4 UTF-8 bytes for the sample', () => {
    const input = {
      numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 1e-27],
      string: '\u20ac$\u000f\nA\'B"\\\\"/',
      literals: [null, true, false],
    };
    const hex = Buffer.from(canonicalJson(input), 'utf8').toString('hex');
    const rfcBytes =
      '7b226c69746572616c73223a5b6e756c6c2c747275652c66616c73655d2c226e756d62657273223a5b3333333333333333' +
      '332e333333333333332c31652b33302c342e352c302e3030322c31652d32375d2c22737472696e67223a22e282ac245c75' +
      '303030665c6e4127425c225c5c5c5c5c222f227d';
    expect(hex).toBe(rfcBytes);
  });

  it('sorts members by UTF-16 code units (3.2.3 sorting example)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Read the order from the text: Object.keys would list the integer-like key "1" first.
    const order = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":"/g)].map((m) => JSON.parse(`"${m[1]}"`));
    expect(order).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('sorts by code unit, not code point: U+1F600 (D83D) sorts before U+FB33', () => {
    expect(canonicalJson({ '\ufb33': 1, '\ud83d\ude00': 2 })).toBe('{"\ud83d\ude00":2,"\ufb33":1}');
  });

  const appendixB: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  it.each(appendixB)('Appendix B: 0x%s -> %s', (bits, expected) => {
    expect(canonicalJson(fromIeee754Hex(bits))).toBe(expected);
  });

  it.each(['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000'])(
    'Appendix B: 0x%s (NaN / Infinity) is an error',
    (bits) => {
      expect(() => canonicalJson(fromIeee754Hex(bits))).toThrow(CanonicalizationError);
    },
  );

  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['1e21', '1e+21'],
    ['1e-7', '1e-7'],
    ['333333333.33333329', '333333333.3333333'],
    ['4.50', '4.5'],
    ['2e-3', '0.002'],
    ['0.000001', '0.000001'],
    ['1E30', '1e+30'],
    ['9007199254740992', '9007199254740992'],
    ['-1.0000000000000002', '-1.0000000000000002'],
    ['100', '100'],
    ['1e20', '100000000000000000000'],
  ])('number text %s -> %s', (text, expected) => {
    expect(canonicalJson(JSON.parse(text))).toBe(expected);
  });
});

describe('canonicalJson: string escaping (RFC 8785 3.2.2.2)', () => {
  it('escapes control characters as lowercase \\u00xx, with the short forms where JSON has them', () => {
    expect(canonicalJson('\u000f')).toBe('"\\u000f"');
    expect(canonicalJson('\u001f\u0000')).toBe('"\\u001f\\u0000"');
    expect(canonicalJson('\b\t\n\f\r')).toBe('"\\b\\t\\n\\f\\r"');
  });

  it('escapes only " and \\ otherwise: solidus, U+2028/2029, DEL, non-ASCII stay raw', () => {
    expect(canonicalJson('a/b')).toBe('"a/b"');
    expect(canonicalJson('"\\')).toBe('"\\"\\\\"');
    expect(canonicalJson('\u2028\u2029')).toBe('"\u2028\u2029"');
    expect(canonicalJson('\u007f\u00e9\u20ac\ud83d\ude00')).toBe('"\u007f\u00e9\u20ac\ud83d\ude00"');
  });

  it('refuses lone surrogates (not I-JSON) in values and in keys', () => {
    expect(() => canonicalJson('\ud800')).toThrow(CanonicalizationError);
    expect(() => canonicalJson({ a: 'x\udc00' })).toThrow(/lone surrogate at \/a/);
    expect(() => canonicalJson({ ['\ude00']: 1 })).toThrow(/lone surrogate/);
  });
});

describe('canonicalJson: structure', () => {
  it('removes whitespace and sorts nested objects, keeps array order', () => {
    const input = { b: [3, 1, { z: 1, a: [] }], a: { d: true, '10': null, '1': {} } };
    expect(canonicalJson(input)).toBe('{"a":{"1":{},"10":null,"d":true},"b":[3,1,{"a":[],"z":1}]}');
  });

  it('is independent of insertion order', () => {
    expect(canonicalJson({ x: 1, y: { q: 2, p: 3 } })).toBe(canonicalJson({ y: { p: 3, q: 2 }, x: 1 }));
  });

  it('accepts null-prototype objects and shared (non-cyclic) references', () => {
    const shared = { v: 1 };
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = shared;
    expect(canonicalJson({ a: shared, b: bare })).toBe('{"a":{"v":1},"b":{"k":{"v":1}}}');
  });
});

describe('canonicalJson: refusals', () => {
  class Thing {
    x = 1;
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cyclicArray: unknown[] = [];
  cyclicArray.push([cyclicArray]);

  it.each<[string, unknown]>([
    ['undefined root', undefined],
    ['undefined member', { a: 1, b: undefined }],
    ['undefined array item', [1, undefined]],
    ['array hole', [1, , 3]],
    ['function', { f: () => 1 }],
    ['symbol', { s: Symbol('x') }],
    ['symbol key', { [Symbol('k')]: 1 }],
    ['bigint', { n: 1n }],
    ['NaN', { n: NaN }],
    ['Infinity', [Infinity]],
    ['-Infinity', -Infinity],
    ['Date', { d: new Date(0) }],
    ['Map', new Map()],
    ['Set', { s: new Set() }],
    ['class instance', { t: new Thing() }],
    ['boxed string', { s: new String('x') }],
    ['Buffer', { b: Buffer.from('x') }],
    ['object with toJSON', { toJSON: () => 'x' }],
    ['cycle', cyclic],
    ['array cycle', cyclicArray],
  ])('refuses %s', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalizationError);
  });

  it('names the path of the offending value', () => {
    expect(() => canonicalJson({ a: [{ 'b/c': undefined }] })).toThrow('undefined is not JSON at /a/0/b~1c');
  });

  it('CanonicalizationError is an Error with a name', () => {
    try {
      canonicalJson(undefined);
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toBeInstanceOf(Error);
      expect(err).toBeInstanceOf(CanonicalizationError);
      expect((err as Error).name).toBe('CanonicalizationError');
    }
  });
});
