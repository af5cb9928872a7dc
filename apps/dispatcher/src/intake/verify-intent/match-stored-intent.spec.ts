import type { IntentMessage } from '@arvis/contracts';
import { intentCommitmentOf } from '@arvis/effect-context';
import { matchStoredIntent, type StoredIntent } from './match-stored-intent';

const fp = 'f'.repeat(64);
const stored: StoredIntent = {
  intentId: 'i-1',
  decisionId: 'd-1',
  capabilityId: 'c-1',
  runId: 'run-1',
  causalId: 'cause-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  processId: 'default',
  payloadCanonical: '{"text":"x"}',
  payloadSha256: 'a'.repeat(64),
  effectContext: {},
  effectContextCommitment: 'b'.repeat(64),
  idempotencyKey: `idem:${'c'.repeat(64)}`,
  catalogFingerprint: 'd'.repeat(64),
  intentCommitment: '',
  receiptId: 'r-1',
  durablePosition: 7n,
  storeFingerprint: fp,
  committedAt: new Date(),
};
stored.intentCommitment = intentCommitmentOf(stored);

const message = (): IntentMessage => ({
  specVersion: 1,
  intentId: 'i-1',
  capabilityId: 'c-1',
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'cause-1',
  tenant: 'acme',
  tool: 'notes.append',
  intentCommitment: stored.intentCommitment,
  payloadSha256: stored.payloadSha256,
  effectContextCommitment: stored.effectContextCommitment,
  idempotencyKey: stored.idempotencyKey,
  catalogFingerprint: stored.catalogFingerprint,
  receipt: { receiptId: 'r-1', runId: 'run-1', causalId: 'cause-1', intentSha256: stored.intentCommitment, durablePosition: '7', storeFingerprint: fp, committedAt: '2026-11-29T00:00:00.000Z' },
  signature: { keyId: 'k', value: 'x' },
});

describe('matchStoredIntent', () => {
  it('accepts the message that describes exactly the stored intent', () => {
    expect(matchStoredIntent(message(), stored, fp)).toBeNull();
  });

  it('refuses a message with no stored intent, or a stored intent that no longer matches its own commitment', () => {
    expect(matchStoredIntent(message(), undefined, fp)).toMatch(/no stored intent/);
    expect(matchStoredIntent(message(), { ...stored, payloadSha256: 'e'.repeat(64) }, fp)).toMatch(/own commitment/);
  });

  it.each([
    ['capabilityId', (m: IntentMessage) => ({ ...m, capabilityId: 'c-2' })],
    ['tool', (m: IntentMessage) => ({ ...m, tool: 'ledger.transfer' })],
    ['payloadSha256', (m: IntentMessage) => ({ ...m, payloadSha256: 'e'.repeat(64) })],
    ['receipt.durablePosition', (m: IntentMessage) => ({ ...m, receipt: { ...m.receipt, durablePosition: '8' } })],
    ['receipt.receiptId', (m: IntentMessage) => ({ ...m, receipt: { ...m.receipt, receiptId: 'r-2' } })],
  ])('refuses a message whose %s differs from the stored intent', (field, change) => {
    expect(matchStoredIntent(change(message()), stored, fp)).toContain(field);
  });

  it('refuses a receipt from another database', () => {
    expect(matchStoredIntent(message(), stored, 'e'.repeat(64))).toMatch(/this database/);
    expect(matchStoredIntent(message(), stored, new Set(['e'.repeat(64)]))).toMatch(/this database/);
  });

  it('accepts a receipt of a store this database was rebound from after a restore (ADR 0036)', () => {
    expect(matchStoredIntent(message(), stored, new Set(['e'.repeat(64), fp]))).toBeNull();
  });
});
