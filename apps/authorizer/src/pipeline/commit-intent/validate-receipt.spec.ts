import { validateReceipt, type ExpectedReceipt } from './validate-receipt';

const expected: ExpectedReceipt = { intentSha256: 'a'.repeat(64), runId: 'run-1', causalId: 'c-1', storeFingerprint: 'f'.repeat(64) };
const good = {
  receiptId: 'r-1',
  runId: 'run-1',
  causalId: 'c-1',
  intentSha256: 'a'.repeat(64),
  durablePosition: '42',
  storeFingerprint: 'f'.repeat(64),
  committedAt: '2026-11-29T00:00:00.000Z',
};

describe('validateReceipt', () => {
  it('accepts the exact receipt', () => {
    expect(validateReceipt(good, expected)).toBeNull();
  });

  it.each([
    ['not an object', 'receipt', 'receipt_wrong_type'],
    ['an extra field', { ...good, extra: 1 }, 'receipt_wrong_type'],
    ['a missing field', (({ committedAt: _c, ...rest }) => rest)(good), 'receipt_wrong_type'],
    ['an empty receiptId', { ...good, receiptId: '' }, 'receipt_missing_receipt_id'],
    ['an empty causalId', { ...good, causalId: '' }, 'receipt_missing_causal_id'],
    ['a non-decimal position', { ...good, durablePosition: '-1' }, 'receipt_missing_durable_position'],
    ['an empty fingerprint', { ...good, storeFingerprint: '' }, 'receipt_missing_store_fingerprint'],
    ['an empty committedAt', { ...good, committedAt: '' }, 'receipt_missing_committed_at'],
    ['another intent', { ...good, intentSha256: 'b'.repeat(64) }, 'receipt_intent_mismatch'],
    ['another run', { ...good, runId: 'run-2' }, 'receipt_run_mismatch'],
    ['another causal id', { ...good, causalId: 'c-2' }, 'receipt_causal_mismatch'],
    ['another store', { ...good, storeFingerprint: 'e'.repeat(64) }, 'receipt_store_fingerprint_mismatch'],
  ])('refuses %s', (_label, receipt, reason) => {
    expect(validateReceipt(receipt, expected)).toBe(reason);
  });
});
