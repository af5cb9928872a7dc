import { canonicalJson, commitment } from '@arvis/crypto';
import { capabilityCommitmentOf, type CapabilityCommitmentMaterial } from './capability-commitment';

const snapshot = { allowed: true, reason: 'allowed', confirmed: false, riskScore: 0.1, who: { principal: 'é"\\', tenant: '\u20ac' } };
const base: CapabilityCommitmentMaterial = {
  capabilityId: 'cap-1',
  intentCommitment: 'a'.repeat(64),
  effectContextCommitment: 'b'.repeat(64),
  snapshotCanonical: canonicalJson(snapshot),
  idempotencyKey: `idem:${'c'.repeat(64)}`,
};

describe('capabilityCommitmentOf', () => {
  it('is the commitment to the whole object with the snapshot in it, as capabilities were always minted', () => {
    const { snapshotCanonical: _text, ...rest } = base;
    expect(capabilityCommitmentOf(base)).toBe(commitment({ capabilityFormatVersion: 1, ...rest, snapshot }));
  });

  it('is deterministic for the same material, whatever the key order the snapshot had before canonicalisation', () => {
    const reordered = { ...base, snapshotCanonical: canonicalJson({ who: snapshot.who, riskScore: 0.1, confirmed: false, reason: 'allowed', allowed: true }) };
    expect(capabilityCommitmentOf(reordered)).toBe(capabilityCommitmentOf(base));
  });

  it('binds the snapshot text itself: the same value in another form is another commitment', () => {
    expect(capabilityCommitmentOf({ ...base, snapshotCanonical: JSON.stringify(snapshot) })).not.toBe(capabilityCommitmentOf(base));
  });

  it.each([
    ['capabilityId', { capabilityId: 'cap-2' }],
    ['intentCommitment', { intentCommitment: 'd'.repeat(64) }],
    ['effectContextCommitment', { effectContextCommitment: 'e'.repeat(64) }],
    ['snapshot', { snapshotCanonical: canonicalJson({ ...snapshot, confirmed: true }) }],
    ['idempotencyKey', { idempotencyKey: `idem:${'f'.repeat(64)}` }],
  ])('changes when %s changes', (_field, change) => {
    expect(capabilityCommitmentOf({ ...base, ...change })).not.toBe(capabilityCommitmentOf(base));
  });
});
