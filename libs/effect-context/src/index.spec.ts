import * as api from './index';

// The index is the only public surface; other code is written against exactly these names.
describe('@arvis/effect-context public surface', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CanonicalizationError',
        'CAPABILITY_FORMAT_VERSION',
        'capabilityCommitmentOf',
        'EFFECT_CONTEXT_FORMAT_VERSION',
        'INTENT_FORMAT_VERSION',
        'intentCommitmentOf',
        'KERNEL_PRINCIPAL',
        'buildEffectContext',
        'diffEffectContext',
        'effectContextCommitment',
        'GENESIS_HASH',
        'canonicalJson',
        'chainHash',
        'commitment',
        'deepFreeze',
        'deriveIdempotencyKey',
        'freezePayload',
        'frozenPayloadFromCanonical',
        'generateEd25519KeyPair',
        'loadEd25519PrivateKey',
        'loadEd25519PublicKey',
        'sha256Hex',
        'signCanonical',
        'verifyCanonicalSignature',
      ].sort(),
    );
  });

  it('types are usable from the index', () => {
    const frozen: api.FrozenPayload | undefined = undefined;
    const ring: api.VerificationKeyring = new Map();
    const key: Partial<api.SigningKey> = {};
    expect([frozen, ring.size, key]).toEqual([undefined, 0, {}]);
  });
});
