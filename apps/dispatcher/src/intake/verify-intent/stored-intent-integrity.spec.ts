import { capabilityCommitmentOf, freezePayload, intentCommitmentOf, type AuthorizedEffectContext } from '@arvis/effect-context';
import { canonicalJson, commitment } from '@arvis/crypto';
import type { CapabilityForActivation } from '@arvis/lifecycle';
import type { StoredIntent } from './match-stored-intent';
import { checkStoredIntegrity } from './stored-intent-integrity';

const context = {
  effectContextFormatVersion: 1,
  principal: 'alice',
  tenant: 'acme',
  authenticationSource: 'https://issuer.example',
  authenticationStrength: 'jwt',
  serviceId: 'agent-1',
  sessionIdHash: null,
  processId: 'default',
  runId: 'run-1',
} as unknown as AuthorizedEffectContext;

function minted(): { stored: StoredIntent; capability: CapabilityForActivation } {
  const frozen = freezePayload({ text: 'hello' });
  if (!frozen.ok) throw new Error('fixture payload');
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
    payloadCanonical: frozen.frozen.canonical,
    payloadSha256: frozen.frozen.sha256,
    effectContext: context,
    effectContextCommitment: commitment(context),
    idempotencyKey: `idem:${'c'.repeat(64)}`,
    catalogFingerprint: 'd'.repeat(64),
    intentCommitment: '',
    receiptId: 'r-1',
    durablePosition: 7n,
    storeFingerprint: 'f'.repeat(64),
    committedAt: new Date(),
  };
  stored.intentCommitment = intentCommitmentOf(stored);
  // As the authorizer stores it: canonical text.
  const snapshot = canonicalJson({ riskScore: 0.1, confirmed: false });
  const capability = {
    capabilityId: 'c-1',
    snapshot,
    commitment: capabilityCommitmentOf({
      capabilityId: 'c-1',
      intentCommitment: stored.intentCommitment,
      effectContextCommitment: stored.effectContextCommitment,
      snapshotCanonical: snapshot,
      idempotencyKey: stored.idempotencyKey,
    }),
  };
  return { stored, capability };
}

describe('checkStoredIntegrity', () => {
  it('hands back the payload and context of an intent that is exactly as committed', () => {
    const { stored, capability } = minted();
    const r = checkStoredIntegrity(stored, capability);
    expect(r.ok && r.payload.value).toEqual({ text: 'hello' });
    expect(r.ok && r.effectContext.principal).toBe('alice');
  });

  it.each([
    ['a payload changed under its hash', (s: StoredIntent) => ({ ...s, payloadCanonical: '{"text":"evil"}' }), /payload does not match/],
    ['a payload no longer canonical', (s: StoredIntent) => ({ ...s, payloadCanonical: '{ "text": "hello" }' }), /payload unreadable/],
    ['a changed effect context', (s: StoredIntent) => ({ ...s, effectContext: { ...context, principal: 'mallory' } }), /effect context does not match/],
    ['an effect context that cannot be canonicalized', (s: StoredIntent) => ({ ...s, effectContext: { x: 1n } }), /effect context unreadable/],
  ])('refuses %s', (_name, change, detail) => {
    const { stored, capability } = minted();
    const r = checkStoredIntegrity(change(stored), capability);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.detail).toMatch(detail);
  });

  it('refuses a capability whose snapshot changed, or that has none', () => {
    const { stored, capability } = minted();
    expect(checkStoredIntegrity(stored, { ...capability, snapshot: '{"riskScore":0.1,"confirmed":true}' })).toEqual({
      ok: false,
      detail: 'the capability does not match its commitment',
    });
    // The same value, rewritten out of canonical form (keys reordered, a space): the stored text is what is committed to.
    expect(checkStoredIntegrity(stored, { ...capability, snapshot: '{"riskScore":0.1,"confirmed":false}' }).ok).toBe(false);
    expect(checkStoredIntegrity(stored, { ...capability, snapshot: '{"confirmed":false, "riskScore":0.1}' }).ok).toBe(false);
    expect(checkStoredIntegrity(stored, { ...capability, snapshot: null }).ok).toBe(false);
    expect(checkStoredIntegrity(stored, undefined).ok).toBe(false);
  });
});
