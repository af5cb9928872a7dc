import type { ActionDecision, InternalRetryDecision, ReasonCode } from '@arvis/contracts';
import type { AuthorizedEffectContext, FrozenPayload, VerifiedIdentity } from '@arvis/effect-context';
import type { ToolSpec } from '@arvis/tool-catalog';
import type { StoredIdentity } from '../verify-identity/stored-identity';

/** Principal and tenant recorded on a refusal whose identity could not be established. */
export const UNAUTHENTICATED = '__unauthenticated__';
export const UNKNOWN_TENANT = '__unknown__';

/**
 * A decision inside the authorizer: its token was verified at intake and is not carried on; the
 * verified claims travel beside it as a StoredIdentity (ADR 0035).
 */
export type Decision = Omit<ActionDecision, 'identity'> | Omit<InternalRetryDecision, 'identity'>;

export interface Authorized {
  ok: true;
  decision: Decision;
  identity: VerifiedIdentity;
  /** The claims admission re-checks, and the inbox keeps. */
  stored: StoredIdentity;
  /** A resumed confirmation: its issuer's `parkedDecisions` rule applies at the re-check. */
  resumed: boolean;
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
  stored: StoredIdentity;
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
  issuer: string | null;
  tool: string;
  payloadSha256: string;
  status: string;
  grantExpiresAt: Date | null;
}
