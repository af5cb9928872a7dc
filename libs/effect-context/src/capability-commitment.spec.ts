import { capabilityCommitmentOf, type CapabilityCommitmentMaterial } from './capability-commitment';

const base: CapabilityCommitmentMaterial = {
  capabilityId: 'cap-1',
  intentCommitment: 'a'.repeat(64),
  effectContextCommitment: 'b'.repeat(64),
  snapshot: { allowed: true, reason: 'allowed', confirmed: false, riskScore: 0.1 },
  idempotencyKey: `idem:${'c'.repeat(64)}`,
};

describe('capabilityCommitmentOf', () => {
  it('is deterministic for the same material, whatever the key order of the snapshot', () => {
    const reordered = { ...base, snapshot: { riskScore: 0.1, confirmed: false, reason: 'allowed', allowed: true } };
    expect(capabilityCommitmentOf(reordered)).toBe(capabilityCommitmentOf(base));
  });

  it.each([
    ['capabilityId', { capabilityId: 'cap-2' }],
    ['intentCommitment', { intentCommitment: 'd'.repeat(64) }],
    ['effectContextCommitment', { effectContextCommitment: 'e'.repeat(64) }],
    ['snapshot', { snapshot: { ...(base.snapshot as object), confirmed: true } }],
    ['idempotencyKey', { idempotencyKey: `idem:${'f'.repeat(64)}` }],
  ])('changes when %s changes', (_field, change) => {
    expect(capabilityCommitmentOf({ ...base, ...change })).not.toBe(capabilityCommitmentOf(base));
  });
});
