import { deriveIdempotencyKey, type IdempotencyKeyInput } from './idempotency-key';
import { commitment, sha256Hex } from '@arvis/crypto';

describe('deriveIdempotencyKey', () => {
  const base: IdempotencyKeyInput = {
    tool: 'email.send',
    payloadSha256: sha256Hex('{"to":"a@b.c"}'),
    principal: 'user-1',
    tenant: 'tenant-1',
    serviceId: 'svc-1',
    processId: 'default',
  };

  it('is idem: + commitment of the versioned field set', () => {
    expect(deriveIdempotencyKey(base)).toBe('idem:' + commitment({ v: 1, ...base }));
    expect(deriveIdempotencyKey(base)).toMatch(/^idem:[0-9a-f]{64}$/);
  });

  it('is the same for the same inputs', () => {
    expect(deriveIdempotencyKey({ ...base })).toBe(deriveIdempotencyKey(base));
  });

  it.each<[keyof IdempotencyKeyInput, string]>([
    ['tool', 'email.draft'],
    ['payloadSha256', sha256Hex('{"to":"x@y.z"}')],
    ['principal', 'user-2'],
    ['tenant', 'tenant-2'],
    ['serviceId', 'svc-2'],
    ['processId', 'batch'],
  ])('changes when %s differs', (field, other) => {
    expect(deriveIdempotencyKey({ ...base, [field]: other })).not.toBe(deriveIdempotencyKey(base));
  });

  it('ignores any other field (runId, causalId, attempt, nonce never count)', () => {
    const noisy = { ...base, runId: 'r', causalId: 'c', attempt: 2, nonce: 'n' } as IdempotencyKeyInput;
    expect(deriveIdempotencyKey(noisy)).toBe(deriveIdempotencyKey(base));
  });

  it('refuses missing or empty fields and a payloadSha256 that is not a hash', () => {
    expect(() => deriveIdempotencyKey({ ...base, tenant: '' })).toThrow(/tenant/);
    expect(() => deriveIdempotencyKey({ ...base, processId: undefined as unknown as string })).toThrow(/processId/);
    expect(() => deriveIdempotencyKey({ ...base, payloadSha256: '{"to":"a@b.c"}' })).toThrow(/payloadSha256/);
  });
});
