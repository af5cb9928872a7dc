import { capabilityCommitmentOf, effectContextCommitment, frozenPayloadFromCanonical, type AuthorizedEffectContext, type FrozenPayload } from '@arvis/effect-context';
import type { CapabilityForActivation } from '@arvis/lifecycle';
import type { StoredIntent } from './match-stored-intent';

export type Integrity =
  | { ok: true; payload: FrozenPayload; effectContext: AuthorizedEffectContext }
  | { ok: false; detail: string };

/**
 * What a tool will be handed comes from the stored intent, so before any activation the
 * dispatcher recomputes everything from it: the payload's SHA-256 from the canonical text, the
 * effect context's commitment from the stored context, and the capability's commitment from
 * both and the snapshot's stored text (as stored: a snapshot rewritten, even to an equal value,
 * fails). A row changed after commit fails one of them.
 */
export function checkStoredIntegrity(stored: StoredIntent, capability: CapabilityForActivation | undefined): Integrity {
  if (!capability?.snapshot) return { ok: false, detail: 'the capability has no stored snapshot' };
  let payload: FrozenPayload;
  try {
    payload = frozenPayloadFromCanonical(stored.payloadCanonical);
  } catch (e) {
    return { ok: false, detail: `stored payload unreadable: ${(e as Error).message}` };
  }
  if (payload.sha256 !== stored.payloadSha256) return { ok: false, detail: 'stored payload does not match its committed SHA-256' };
  const effectContext = stored.effectContext as AuthorizedEffectContext;
  let contextCommitment: string;
  try {
    contextCommitment = effectContextCommitment(effectContext);
  } catch (e) {
    return { ok: false, detail: `stored effect context unreadable: ${(e as Error).message}` };
  }
  if (contextCommitment !== stored.effectContextCommitment) return { ok: false, detail: 'stored effect context does not match its commitment' };
  return capabilityMatches(stored, capability) ? { ok: true, payload, effectContext } : { ok: false, detail: 'the capability does not match its commitment' };
}

function capabilityMatches(stored: StoredIntent, capability: CapabilityForActivation): boolean {
  try {
    return (
      capabilityCommitmentOf({
        capabilityId: capability.capabilityId,
        intentCommitment: stored.intentCommitment,
        effectContextCommitment: stored.effectContextCommitment,
        snapshotCanonical: capability.snapshot!,
        idempotencyKey: stored.idempotencyKey,
      }) === capability.commitment
    );
  } catch {
    return false;
  }
}
