import type { ActionDecision, ReasonCode } from '@arvis/contracts';
import type { AuthorizedEffectContext, FrozenPayload, VerifiedIdentity } from '@arvis/effect-context';
import type { ToolSpec } from '@arvis/tool-catalog';

/** Principal and tenant recorded on a refusal whose identity could not be established. */
export const UNAUTHENTICATED = '__unauthenticated__';
export const UNKNOWN_TENANT = '__unknown__';

export interface Authorized {
  ok: true;
  decision: ActionDecision;
  identity: VerifiedIdentity;
  frozen: FrozenPayload;
  spec: ToolSpec;
  effectContext: AuthorizedEffectContext;
  idempotencyKey: string;
  /** Immutable record of why this was allowed; bound into the capability commitment. */
  snapshot: Readonly<Record<string, unknown>>;
}

/** An expected outcome, not an exception: a typed refusal with its reason code. */
export interface Refused {
  ok: false;
  decision: ActionDecision;
  reasonCode: ReasonCode;
  detail: string;
  principal: string;
  tenant: string;
  snapshot: Readonly<Record<string, unknown>>;
}

export type Authorization = Authorized | Refused;
