import { GENESIS_HASH, chainHash, chainLink } from './chain-hash';
import { sha256Hex } from './hash';

describe('chainHash', () => {
  const entry = { journalSeq: '1', kind: 'tool_result', success: true, prevHash: GENESIS_HASH };

  it('GENESIS_HASH is 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
  });

  it('is SHA-256(prevHash ‖ JCS(entry))', () => {
    const expected = sha256Hex(
      GENESIS_HASH + `{"journalSeq":"1","kind":"tool_result","prevHash":"${GENESIS_HASH}","success":true}`,
    );
    expect(chainHash(GENESIS_HASH, entry)).toBe(expected);
  });

  it('chainLink gives the same hash and the canonical text it hashed', () => {
    const link = chainLink(GENESIS_HASH, entry);
    expect(link).toEqual({ hash: chainHash(GENESIS_HASH, entry), canonical: `{"journalSeq":"1","kind":"tool_result","prevHash":"${GENESIS_HASH}","success":true}` });
    expect(() => chainLink(GENESIS_HASH, { ...entry, hash: undefined })).toThrow(/hash/);
  });

  it('is deterministic and independent of key order', () => {
    const reordered = { success: true, prevHash: GENESIS_HASH, kind: 'tool_result', journalSeq: '1' };
    expect(chainHash(GENESIS_HASH, entry)).toBe(chainHash(GENESIS_HASH, reordered));
  });

  it('changes with prevHash and with any field of the entry', () => {
    const base = chainHash(GENESIS_HASH, entry);
    expect(chainHash('f'.repeat(64), entry)).not.toBe(base);
    expect(chainHash(GENESIS_HASH, { ...entry, success: false })).not.toBe(base);
  });

  it('links: each hash feeds the next', () => {
    const h1 = chainHash(GENESIS_HASH, entry);
    const e2 = { ...entry, journalSeq: '2', prevHash: h1 };
    expect(chainHash(h1, e2)).toMatch(/^[0-9a-f]{64}$/);
    expect(chainHash(h1, e2)).not.toBe(chainHash(GENESIS_HASH, e2));
  });

  it('refuses an entry that still has a hash key, even undefined', () => {
    expect(() => chainHash(GENESIS_HASH, { ...entry, hash: 'abc' })).toThrow(/hash/);
    expect(() => chainHash(GENESIS_HASH, { ...entry, hash: undefined })).toThrow(/hash/);
  });

  it('refuses a malformed prevHash', () => {
    expect(() => chainHash('', entry)).toThrow(/prevHash/);
    expect(() => chainHash('F'.repeat(64), entry)).toThrow(/prevHash/);
  });
});
