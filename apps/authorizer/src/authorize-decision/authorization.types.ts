import type { ActionDecision, InternalRetryDecision, ReasonCode } from '@arvis/contracts';
import type { AuthorizedEffectContext, FrozenPayload, VerifiedIdentity } from '@arvis/effect-context';
import type { ToolSpec } from '@arvis/tool-catalog';

/** Principal and tenant recorded on a refusal whose identity could not be established. */
export const UNAUTHENTICATED = '__unauthenticated__';
export const UNKNOWN_TENANT = '__unknown__';

export type Decision = ActionDecision | InternalRetryDecision;

export interface Authorized {
  ok: true;
  decision: Decision;
  identity: VerifiedIdentity;
  frozen: FrozenPayload;
  spec: ToolSpec;
  effectContext: AuthorizedEffectContext;
  idempotencyKey: string;
  /** An approved confirmation this decision presented; reserved by its capability in the transaction. */
  confirmationId?: string;
  /** Immutable record of why this was allowed; bound into the capability commitment. */
  snapshot: Readonly<Record<string, unknown>>;
}

/** An expected outcome, not an exception: a typed refusal with its reason code. */
export interface Refused {
  ok: false;
  parked?: false;
  decision: Decision;
  reasonCode: ReasonCode;
  detail: string;
  principal: string;
  tenant: string;
  snapshot: Readonly<Record<string, unknown>>;
}

/** Needs a human confirmation it does not have: parked until an approver decides. */
export interface Parked {
  ok: false;
  parked: true;
  decision: Decision;
  identity: VerifiedIdentity;
  frozen: FrozenPayload;
  spec: ToolSpec;
}

export type Authorization = Authorized | Refused | Parked;

/** What policy reads from the host's own tables, loaded once per batch. */
export interface PolicyData {
  /** Tenants that have any consent data, and `${tenant}|${principal}|${key}` grants. */
  consentTenants: ReadonlySet<string>;
  consentGrants: ReadonlySet<string>;
  /** Tenants that have an egress policy, and `${tenant}|${provider}` allowances. */
  egressTenants: ReadonlySet<string>;
  egressAllowed: ReadonlySet<string>;
  confirmations: ReadonlyMap<string, ConfirmationRow>;
  databaseNow: Date;
}

export interface ConfirmationRow {
  confirmationId: string;
  tenant: string;
  principal: string;
  tool: string;
  payloadSha256: string;
  status: string;
  grantExpiresAt: Date | null;
}
