import { CanonicalizationError } from './canonical-json';
import { commitment, sha256Hex } from './hash';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 vectors, lowercase hex', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes strings as UTF-8, the same as their bytes', () => {
    expect(sha256Hex('€')).toBe(sha256Hex(new Uint8Array([0xe2, 0x82, 0xac])));
  });
});

describe('commitment', () => {
  it('is sha256Hex of the canonical text, so key order does not matter', () => {
    expect(commitment({ b: 1, a: [2] })).toBe(sha256Hex('{"a":[2],"b":1}'));
    expect(commitment({ a: [2], b: 1 })).toBe(commitment({ b: 1, a: [2] }));
  });

  it('refuses values JCS cannot represent instead of dropping them', () => {
    expect(() => commitment({ a: undefined })).toThrow(CanonicalizationError);
  });
});
