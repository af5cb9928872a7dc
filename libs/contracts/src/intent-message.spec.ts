import { AuditReceiptSchema, IntentMessageSchema, UnsignedIntentMessageSchema } from './index';

const h = (c: string): string => c.repeat(64);
const receipt = {
  receiptId: 'r-1',
  runId: 'run-1',
  causalId: 'c-1',
  intentSha256: h('1'),
  durablePosition: '9223372036854775807',
  storeFingerprint: h('2'),
  committedAt: '2025-01-02T03:04:05.678Z',
};
const unsigned = {
  specVersion: 1,
  intentId: 'i-1',
  capabilityId: 'cap-1',
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'c-1',
  tenant: 'acme',
  tool: 'payments.transfer',
  intentCommitment: h('3'),
  payloadSha256: h('4'),
  effectContextCommitment: h('5'),
  idempotencyKey: `idem:${h('6')}`,
  catalogFingerprint: h('7'),
  receipt,
};
const signed = { ...unsigned, signature: { keyId: 'authorizer-2025', value: 'q83v_-AB' } };

describe('IntentMessageSchema', () => {
  it('accepts a signed intent, with or without retry', () => {
    expect(IntentMessageSchema.parse(signed)).toEqual(signed);
    const withRetry = { ...signed, retry: { attempt: 2, chainId: 'ch', parentCausalId: 'c-0' } };
    expect(IntentMessageSchema.parse(withRetry)).toEqual(withRetry);
  });

  it('refuses unknown fields, including a payload in clear', () => {
    expect(IntentMessageSchema.safeParse({ ...signed, payload: { a: 1 } }).success).toBe(false);
    expect(IntentMessageSchema.safeParse({ ...signed, receipt: { ...receipt, extra: 1 } }).success).toBe(false);
    expect(IntentMessageSchema.safeParse({ ...signed, signature: { ...signed.signature, alg: 'x' } }).success).toBe(false);
  });

  it('requires a signature with a base64url value', () => {
    expect(IntentMessageSchema.safeParse(unsigned).success).toBe(false);
    expect(IntentMessageSchema.safeParse({ ...signed, signature: { keyId: 'k', value: '' } }).success).toBe(false);
    expect(IntentMessageSchema.safeParse({ ...signed, signature: { keyId: 'k', value: 'ab+/==' } }).success).toBe(false);
  });

  it('UnsignedIntentMessageSchema is the same shape without signature, still strict', () => {
    expect(UnsignedIntentMessageSchema.parse(unsigned)).toEqual(unsigned);
    expect(UnsignedIntentMessageSchema.safeParse(signed).success).toBe(false);
  });

  it('receipt fields are typed: decimal position, hex hashes, UTC timestamp', () => {
    expect(AuditReceiptSchema.safeParse({ ...receipt, durablePosition: 5 }).success).toBe(false);
    expect(AuditReceiptSchema.safeParse({ ...receipt, intentSha256: h('G') }).success).toBe(false);
    expect(AuditReceiptSchema.safeParse({ ...receipt, committedAt: '2025-01-02T03:04:05Z' }).success).toBe(false);
  });
});
