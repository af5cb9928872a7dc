import { DecimalString, IdempotencyKey, Identifier, Rfc3339Utc, Sha256Hex } from './index';

const hex = 'a'.repeat(64);

describe('primitives', () => {
  it('Sha256Hex accepts only 64 lowercase hex characters, no prefix', () => {
    expect(Sha256Hex.safeParse(hex).success).toBe(true);
    expect(Sha256Hex.safeParse('A'.repeat(64)).success).toBe(false);
    expect(Sha256Hex.safeParse(`sha256:${hex}`).success).toBe(false);
    expect(Sha256Hex.safeParse('a'.repeat(63)).success).toBe(false);
  });

  it('IdempotencyKey requires the idem: prefix on a SHA-256', () => {
    expect(IdempotencyKey.safeParse(`idem:${hex}`).success).toBe(true);
    expect(IdempotencyKey.safeParse(hex).success).toBe(false);
    expect(IdempotencyKey.safeParse(`idem:${'A'.repeat(64)}`).success).toBe(false);
  });

  it('DecimalString accepts canonical non-negative integers up to 20 digits', () => {
    for (const ok of ['0', '1', '42', '18446744073709551615']) expect(DecimalString.safeParse(ok).success).toBe(true);
    for (const bad of ['', '01', '-1', '1.0', '1e3', ' 1', '1'.repeat(21)]) {
      expect(DecimalString.safeParse(bad).success).toBe(false);
    }
  });

  it('Rfc3339Utc requires UTC with milliseconds and a real instant', () => {
    expect(Rfc3339Utc.safeParse('2024-02-29T23:59:59.123Z').success).toBe(true);
    expect(Rfc3339Utc.safeParse('2024-02-29T23:59:59Z').success).toBe(false);
    expect(Rfc3339Utc.safeParse('2024-02-29T23:59:59.123+00:00').success).toBe(false);
    expect(Rfc3339Utc.safeParse('2023-02-29T00:00:00.000Z').success).toBe(false);
    expect(Rfc3339Utc.safeParse('2024-13-01T00:00:00.000Z').success).toBe(false);
  });

  it('Identifier is non-empty, at most 200 characters, without control characters', () => {
    expect(Identifier.safeParse('run-1:retry:2').success).toBe(true);
    expect(Identifier.safeParse('x'.repeat(200)).success).toBe(true);
    expect(Identifier.safeParse('x'.repeat(201)).success).toBe(false);
    expect(Identifier.safeParse('').success).toBe(false);
    expect(Identifier.safeParse('a\nb').success).toBe(false);
    expect(Identifier.safeParse('a\u0000b').success).toBe(false);
    expect(Identifier.safeParse('a\u007fb').success).toBe(false);
  });
});
