import type { IntentMessage } from '@arvis/contracts';
import type { AuthorizedEffectContext, FrozenPayload } from '@arvis/effect-context';
import type { CapabilityFacts } from '@arvis/journal';
import type { TraceCarrier } from '@arvis/tracing';
import type { StoredIntent } from '../verify-intent/match-stored-intent';

/** An intent whose capability this dispatcher consumed, with what its tool will be handed. */
export interface ClaimedIntent {
  intent: IntentMessage;
  stored: StoredIntent;
  /** Recomputed from the stored row and checked against the committed hashes. */
  payload: FrozenPayload;
  effectContext: AuthorizedEffectContext;
  trace?: TraceCarrier;
  /** A confirmation is reserved by this capability: its result releases or spends it. */
  confirmationReserved: boolean;
  /** Its tool is not idempotent: the effect holds its idempotency key, so duplicates may wait for it (ADR 0020). */
  holdsKey: boolean;
}

/** What every journal entry about this intent names. */
export function factsOf(c: { intent: IntentMessage; stored: StoredIntent; trace?: TraceCarrier }): CapabilityFacts {
  return {
    decisionId: c.intent.decisionId,
    runId: c.intent.runId,
    causalId: c.intent.causalId,
    tenant: c.stored.tenant,
    principal: c.stored.principal,
    tool: c.stored.tool,
    capabilityId: c.intent.capabilityId,
    intentCommitment: c.stored.intentCommitment,
    idempotencyKey: c.stored.idempotencyKey,
    ...(c.intent.retry ? { retry: c.intent.retry } : {}),
    ...(c.trace ? { trace: c.trace } : {}),
    admittedAt: c.stored.committedAt,
  };
}
