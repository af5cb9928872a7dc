import { commitment, sha256Hex } from '@arvis/crypto';
import { intentCommitmentOf } from '@arvis/effect-context';
import { checkToolResult, type CapabilityRow, type IntentRow } from './replay-checks';

const payload = '{"text":"x"}';
const effectContext = { principal: 'alice', tenant: 'acme' };
const intent: IntentRow = {
  intent_id: 'i-1',
  decision_id: 'd-1',
  capability_id: 'c-1',
  run_id: 'run-1',
  causal_id: 'cause-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  process_id: 'default',
  payload_canonical: payload,
  payload_sha256: sha256Hex(payload),
  effect_context: effectContext,
  effect_context_commitment: commitment(effectContext),
  idempotency_key: `idem:${'c'.repeat(64)}`,
  catalog_fingerprint: 'd'.repeat(64),
  intent_commitment: '',
};
intent.intent_commitment = intentCommitmentOf({
  intentId: 'i-1',
  capabilityId: 'c-1',
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'cause-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  processId: 'default',
  payloadSha256: intent.payload_sha256,
  effectContextCommitment: intent.effect_context_commitment,
  idempotencyKey: intent.idempotency_key,
  catalogFingerprint: intent.catalog_fingerprint,
});
const capability: CapabilityRow = { capability_id: 'c-1', decision_id: 'd-1', intent_id: 'i-1', state: 'consumed', revoked_reason: null };
const entry = {
  kind: 'tool_result',
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'cause-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  capabilityId: 'c-1',
  intentCommitment: intent.intent_commitment,
  idempotencyKey: intent.idempotency_key,
};

describe('checkToolResult', () => {
  it('pins the intent commitment shared with the authorizer and the dispatcher', () => {
    // Same material as apps/dispatcher/src/intake/verify-intent/match-stored-intent.ts; a drift breaks replay.
    expect(intent.intent_commitment).toBe(
      commitment({
        intentFormatVersion: 1,
        intentId: 'i-1',
        capabilityId: 'c-1',
        decisionId: 'd-1',
        runId: 'run-1',
        causalId: 'cause-1',
        tenant: 'acme',
        principal: 'alice',
        tool: 'notes.append',
        processId: 'default',
        payloadSha256: intent.payload_sha256,
        effectContextCommitment: intent.effect_context_commitment,
        idempotencyKey: intent.idempotency_key,
        catalogFingerprint: intent.catalog_fingerprint,
      }),
    );
  });

  it('accepts a result that matches its stored intent and consumed capability', () => {
    expect(checkToolResult(entry, intent, capability)).toEqual([]);
  });

  it('finds a changed payload hash, by the commitment and by the payload itself', () => {
    const found = checkToolResult(entry, { ...intent, payload_sha256: 'e'.repeat(64) }, capability);
    expect(found).toEqual(
      expect.arrayContaining([expect.stringMatching(/does not match its own commitment/), expect.stringMatching(/payload_sha256 is not the SHA-256/)]),
    );
  });

  it('finds a row rewritten consistently, through the commitment the entry chained', () => {
    const forged = { ...intent, payload_canonical: '{"text":"y"}', payload_sha256: sha256Hex('{"text":"y"}') };
    forged.intent_commitment = intentCommitmentOf({
      intentId: 'i-1', capabilityId: 'c-1', decisionId: 'd-1', runId: 'run-1', causalId: 'cause-1', tenant: 'acme', principal: 'alice',
      tool: 'notes.append', processId: 'default', payloadSha256: forged.payload_sha256, effectContextCommitment: forged.effect_context_commitment,
      idempotencyKey: forged.idempotency_key, catalogFingerprint: forged.catalog_fingerprint,
    });
    expect(checkToolResult(entry, forged, capability)).toEqual([expect.stringMatching(/not the commitment recomputed/)]);
  });

  it('finds a missing intent, a changed effect context and a capability that was never consumed', () => {
    expect(checkToolResult(entry, undefined, capability)).toEqual(['no stored intent for capability c-1']);
    expect(checkToolResult(entry, { ...intent, effect_context: { ...effectContext, tenant: 'other' } }, capability)).toEqual([
      expect.stringMatching(/effect_context_commitment/),
    ]);
    expect(checkToolResult(entry, intent, { ...capability, state: 'minted' })).toEqual([expect.stringMatching(/is minted/)]);
  });

  it("accepts a revoked capability only beside its own revocation's refusal, never beside a result that ran", () => {
    const revoked = { ...capability, state: 'revoked', revoked_reason: 'capability_activation_failed' };
    const refusal = { ...entry, effectBoundary: 'pre_effect_refusal', success: false, reasonCode: 'capability_activation_failed' };
    expect(checkToolResult(refusal, intent, revoked)).toEqual([]);
    expect(checkToolResult({ ...refusal, reasonCode: 'frozen_surface_diverged' }, intent, revoked)).toEqual([expect.stringMatching(/is revoked/)]);
    expect(checkToolResult(entry, intent, revoked)).toEqual([expect.stringMatching(/is revoked/)]);
  });
});
