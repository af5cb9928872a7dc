import { commitment } from '@arvis/effect-context';

/** The stored-intent fields the intent commitment covers. */
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
 * DUPLICATE of intentCommitmentOf in apps/dispatcher/src/dispatch-intents/verify-intent.ts (the
 * authorizer computes the same in commit-intent.service.ts). Apps may not import one another;
 * this belongs in a lib (e.g. @arvis/effect-context or @arvis/contracts) that all three use.
 * Keep the three in step until then: the replay spec pins a known value.
 */
export function intentCommitmentOf(s: IntentCommitmentMaterial): string {
  return commitment({
    intentFormatVersion: 1,
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
