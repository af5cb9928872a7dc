import { clipText } from './index';

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('clipText', () => {
  it('keeps text at or under the limit unchanged', () => {
    expect(clipText('abc', 3)).toBe('abc');
    expect(clipText('😀😀😀', 3)).toBe('😀😀😀'); // six UTF-16 units, three code points
  });

  it('cuts to the limit in code points, the ellipsis included', () => {
    expect(clipText('abcdef', 4)).toBe('abc…');
    expect([...clipText('x'.repeat(1000), 500)]).toHaveLength(500);
  });

  it('never splits a surrogate pair', () => {
    const s = `${'a'.repeat(469)}😀${'b'.repeat(40)}`;
    for (const max of [469, 470, 471, 472]) {
      const clipped = clipText(s, max);
      expect(loneSurrogate.test(clipped)).toBe(false);
      expect([...clipped].length).toBeLessThanOrEqual(max);
    }
    expect(clipText(s, 471)).toBe(`${'a'.repeat(469)}😀…`);
  });

  it('counts an existing lone surrogate as one code point and keeps it', () => {
    expect(clipText('a\ud800b', 3)).toBe('a\ud800b');
  });
});
