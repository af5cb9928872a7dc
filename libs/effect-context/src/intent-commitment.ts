import { commitment } from '@arvis/crypto';

export const INTENT_FORMAT_VERSION = 1;

/** The fields the intent commitment covers: identifiers and hashes, never the payload itself. */
export interface IntentCommitmentMaterial {
  intentId: string;
  capabilityId: string;
  decisionId: string;
  runId: string;
  causalId: string;
  tenant: string;
  principal: string;
  tool: string;
  processId: string;
  payloadSha256: string;
  effectContextCommitment: string;
  idempotencyKey: string;
  catalogFingerprint: string;
}

/**
 * The exact intent's commitment. The authorizer computes it when committing the intent, the
 * dispatcher recomputes it from the stored intent before activation, and replay recomputes it
 * again: one function, so the three cannot drift.
 */
export function intentCommitmentOf(s: IntentCommitmentMaterial): string {
  return commitment({
    intentFormatVersion: INTENT_FORMAT_VERSION,
    intentId: s.intentId,
    capabilityId: s.capabilityId,
    decisionId: s.decisionId,
    runId: s.runId,
    causalId: s.causalId,
    tenant: s.tenant,
    principal: s.principal,
    tool: s.tool,
    processId: s.processId,
    payloadSha256: s.payloadSha256,
    effectContextCommitment: s.effectContextCommitment,
    idempotencyKey: s.idempotencyKey,
    catalogFingerprint: s.catalogFingerprint,
  });
}
