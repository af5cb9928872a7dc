import * as api from './index';

// The index is the only public surface; other code is written against exactly these names.
describe('@arvis/crypto public surface', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CanonicalizationError',
        'GENESIS_HASH',
        'canonicalJson',
        'canonicalJsonWithCanonicalMember',
        'canonicalJsonWithMember',
        'chainHash',
        'chainLink',
        'commitment',
        'compactJsonWithoutMember',
        'deepFreeze',
        'generateEd25519KeyPair',
        'loadEd25519PrivateKey',
        'loadEd25519PublicKey',
        'sha256Hex',
        'signCanonical',
        'signCanonicalText',
        'verifyCanonicalSignature',
        'verifyCanonicalSignatureOffThread',
      ].sort(),
    );
  });

  it('types are usable from the index', () => {
    const ring: api.VerificationKeyring = new Map();
    const key: Partial<api.SigningKey> = {};
    expect([ring.size, key]).toEqual([0, {}]);
  });
});
