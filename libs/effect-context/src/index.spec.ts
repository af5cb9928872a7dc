import * as api from './index';

// The index is the only public surface; other code is written against exactly these names.
describe('@arvis/effect-context public surface', () => {
  it('exports exactly the agreed runtime names, and no crypto primitive (those are @arvis/crypto)', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CAPABILITY_FORMAT_VERSION',
        'capabilityCommitmentOf',
        'EFFECT_CONTEXT_FORMAT_VERSION',
        'INTENT_FORMAT_VERSION',
        'intentCommitmentOf',
        'KERNEL_PRINCIPAL',
        'buildEffectContext',
        'diffEffectContext',
        'effectContextCommitment',
        'deriveIdempotencyKey',
        'freezePayload',
        'frozenPayloadFromCanonical',
      ].sort(),
    );
  });

  it('types are usable from the index', () => {
    const frozen: api.FrozenPayload | undefined = undefined;
    expect(frozen).toBeUndefined();
  });
});
