import { commitment, sha256Hex } from '@arvis/crypto';
import type { StoredEntry } from '../verify-journal/journal-row';
import { intentCommitmentOf } from '@arvis/effect-context';

/** An intents row as replay reads it. */
export interface IntentRow {
  intent_id: string;
  decision_id: string;
  capability_id: string;
  run_id: string;
  causal_id: string;
  tenant: string;
  principal: string;
  tool: string;
  process_id: string;
  payload_canonical: string;
  payload_sha256: string;
  effect_context: unknown;
  effect_context_commitment: string;
  idempotency_key: string;
  catalog_fingerprint: string;
  intent_commitment: string;
}

export interface CapabilityRow {
  capability_id: string;
  decision_id: string;
  intent_id: string;
  state: string;
  revoked_reason: string | null;
}

/** A revoked capability's own refusal: the result its revocation journals (nothing started, same reason). */
const isRefusalOfRevocation = (entry: StoredEntry, c: CapabilityRow) =>
  c.state === 'revoked' && entry.effectBoundary === 'pre_effect_refusal' && c.revoked_reason !== null && entry.reasonCode === c.revoked_reason;

/**
 * Checks one tool_result entry against the stored intent and capability it names, recomputing
 * every commitment from stored material. Returns the mismatches (empty when all agree).
 */
export function checkToolResult(entry: StoredEntry, intent: IntentRow | undefined, capability: CapabilityRow | undefined): string[] {
  const capabilityId = entry.capabilityId;
  if (typeof capabilityId !== 'string') return ['tool_result names no capability'];
  if (!intent) return [`no stored intent for capability ${capabilityId}`];
  const out: string[] = [];
  const recomputed = intentCommitmentOf({
    intentId: intent.intent_id,
    capabilityId: intent.capability_id,
    decisionId: intent.decision_id,
    runId: intent.run_id,
    causalId: intent.causal_id,
    tenant: intent.tenant,
    principal: intent.principal,
    tool: intent.tool,
    processId: intent.process_id,
    payloadSha256: intent.payload_sha256,
    effectContextCommitment: intent.effect_context_commitment,
    idempotencyKey: intent.idempotency_key,
    catalogFingerprint: intent.catalog_fingerprint,
  });
  if (recomputed !== intent.intent_commitment) out.push(`intent ${intent.intent_id}: stored intent does not match its own commitment (intents row changed)`);
  if (entry.intentCommitment !== recomputed) out.push(`intentCommitment in the entry is not the commitment recomputed from the stored intent ${intent.intent_id}`);
  if (sha256Hex(intent.payload_canonical) !== intent.payload_sha256) out.push(`intent ${intent.intent_id}: payload_sha256 is not the SHA-256 of the stored payload`);
  if (commitment(intent.effect_context) !== intent.effect_context_commitment) {
    out.push(`intent ${intent.intent_id}: effect_context_commitment is not the commitment of the stored effect context`);
  }
  const same: [string, unknown, unknown][] = [
    ['decisionId', entry.decisionId, intent.decision_id],
    ['runId', entry.runId, intent.run_id],
    ['causalId', entry.causalId, intent.causal_id],
    ['tenant', entry.tenant, intent.tenant],
    ['principal', entry.principal, intent.principal],
    ['tool', entry.tool, intent.tool],
    ['idempotencyKey', entry.idempotencyKey, intent.idempotency_key],
  ];
  for (const [field, got, want] of same) if (got !== want) out.push(`${field} in the entry differs from the stored intent ${intent.intent_id}`);
  if (!capability) out.push(`capability ${capabilityId} is missing`);
  else {
    if (capability.state !== 'consumed' && !isRefusalOfRevocation(entry, capability)) out.push(`capability ${capabilityId} is ${capability.state}, but a tool_result needs it consumed`);
    if (capability.intent_id !== intent.intent_id) out.push(`capability ${capabilityId} belongs to intent ${capability.intent_id}, not ${intent.intent_id}`);
  }
  return out;
}
