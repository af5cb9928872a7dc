import { clipText, OPERATOR_RUN_ID, type EffectBoundary, type JournalApprover, type JournalEntryDraft, type JournalError, type JournalOperator, type JournalOperatorAction, type ReasonCode, type RetryInfo } from '@arvis/contracts';
import type { TraceCarrier } from '@arvis/tracing';

/**
 * What a writer hands appendJournal: an entry without the fields the chain supplies. recordedAt
 * is always the database's time at append, so it is not a writer's to give. `trace` is the
 * decision's trace context: the entry's traceId and its journal message's trace headers, never
 * hashed.
 */
export type JournalDraft = Omit<JournalEntryDraft, 'specVersion' | 'recordedAt'> & { trace?: TraceCarrier; admittedAt?: Date };

/**
 * Journaled text is clipped here, by code point, so no caller can forget or cut inside a
 * surrogate pair (a lone surrogate can never be canonicalised, so its entry could never be
 * written): an error's message to 500 code points, an operator's note to 2,000.
 */
export const MAX_ERROR_MESSAGE = 500;
export const MAX_OPERATOR_NOTE = 2000;
const clippedError = (e: JournalError): JournalError => ({ ...e, message: clipText(e.message, MAX_ERROR_MESSAGE) });
const clippedAction = (a: JournalOperatorAction): JournalOperatorAction => (a.note === undefined ? a : { ...a, note: clipText(a.note, MAX_OPERATOR_NOTE) });

/** Who and what a decision is about: every entry names these. */
export interface DecisionFacts {
  decisionId: string;
  runId: string;
  causalId: string;
  tenant: string;
  principal: string;
  tool: string;
  /** The decision's trace context, when it has one. */
  trace?: TraceCarrier;
  /** When its intent was committed, if the writer holds it: a final's latency is measured from it (never journaled). */
  admittedAt?: Date;
}

/** A decision that reached a capability: its committed intent. */
export interface CapabilityFacts extends DecisionFacts {
  capabilityId: string;
  intentCommitment: string;
  idempotencyKey: string;
  retry?: RetryInfo;
}

/** A classified outcome (effect boundary first, success second). */
export interface ResultFields {
  effectBoundary: EffectBoundary;
  success: boolean;
  reasonCode?: ReasonCode;
  output?: unknown;
  error?: JournalError;
  latencyMs?: number;
  /** The decision whose effect this result is; no tool ran for this one. */
  deduplicatedOf?: string;
}

/** A decision known by its identity, before any capability: refusals and parked decisions. */
export interface RefusedDecisionFacts extends DecisionFacts {
  idempotencyKey?: string;
  retry?: RetryInfo;
}

const decisionFields = (f: RefusedDecisionFacts) => ({
  decisionId: f.decisionId,
  runId: f.runId,
  causalId: f.causalId,
  tenant: f.tenant,
  principal: f.principal,
  tool: f.tool,
  ...(f.idempotencyKey ? { idempotencyKey: f.idempotencyKey } : {}),
  ...(f.retry ? { retry: f.retry } : {}),
  ...(f.trace ? { trace: f.trace } : {}),
  ...(f.admittedAt ? { admittedAt: f.admittedAt } : {}),
});

const capabilityFields = (f: CapabilityFacts) => ({
  ...decisionFields(f),
  capabilityId: f.capabilityId,
  intentCommitment: f.intentCommitment,
});

const resultFields = (r: ResultFields) => ({
  effectBoundary: r.effectBoundary,
  success: r.success,
  ...(r.output !== undefined ? { output: r.output } : {}),
  ...(r.error ? { error: clippedError(r.error) } : {}),
  ...(r.reasonCode ? { reasonCode: r.reasonCode } : {}),
  ...(r.latencyMs !== undefined ? { latencyMs: r.latencyMs } : {}),
  ...(r.deduplicatedOf !== undefined ? { deduplicatedOf: r.deduplicatedOf } : {}),
});

/** The final entry of a decision whose capability was consumed, refused or revoked. */
export function toolResultEntry(facts: CapabilityFacts, result: ResultFields): JournalDraft {
  return { kind: 'tool_result', ...capabilityFields(facts), ...resultFields(result) };
}

/**
 * The non-final entry of a body's result that came after its effect was closed unknown (it timed
 * out, or recovery called it lost): the decision keeps its final entry; this records what the
 * body did after all (ADR 0056).
 */
export function lateToolResultEntry(facts: CapabilityFacts, result: ResultFields): JournalDraft {
  return { kind: 'late_tool_result', ...capabilityFields(facts), ...resultFields({ ...result, deduplicatedOf: undefined }) };
}

/** A refusal of a capability before any effect (activation failed, catalog diverged, ...). */
export function capabilityRefusalEntry(facts: CapabilityFacts, code: ReasonCode, message: string): JournalDraft {
  return toolResultEntry(facts, { effectBoundary: 'pre_effect_refusal', success: false, reasonCode: code, error: { code, message } });
}

/**
 * The non-final entry saying an effect's result could not be journaled: the effect boundary is
 * the true one, the reason is audit_incomplete.
 */
export function auditIncompleteEntry(facts: CapabilityFacts, boundary: EffectBoundary, reason: string): JournalDraft {
  return {
    kind: 'audit_incomplete',
    ...capabilityFields(facts),
    effectBoundary: boundary,
    success: false,
    reasonCode: 'audit_incomplete',
    error: clippedError({ code: 'audit_incomplete', message: reason }),
  };
}

/** The final entry of a decision refused before any capability ran: by policy, or at admission. */
export function decisionRefusalEntry(
  kind: 'authorization_refusal' | 'admission_refusal',
  facts: RefusedDecisionFacts,
  error: JournalError,
): JournalDraft {
  return { kind, ...decisionFields(facts), effectBoundary: 'pre_effect_refusal', success: false, reasonCode: error.code, error: clippedError(error) };
}

/** The non-final entry of a decision parked until an approver confirms it. */
export function confirmationPendingEntry(facts: RefusedDecisionFacts, message: string): JournalDraft {
  return {
    kind: 'confirmation_pending',
    ...decisionFields(facts),
    effectBoundary: 'effect_not_started',
    success: false,
    reasonCode: 'confirmation_required',
    error: clippedError({ code: 'confirmation_required', message }),
  };
}

/**
 * The non-final entry of an approver's verdict on a parked decision, naming who decided. Written
 * with the confirmation's state change; a denial's final refusal follows it (ADR 0032).
 */
export function confirmationDecidedEntry(facts: DecisionFacts, verdict: 'approved' | 'denied', approver: JournalApprover): JournalDraft {
  const common = { ...decisionFields(facts), effectBoundary: 'effect_not_started' as const, success: false, approver };
  if (verdict === 'approved') return { kind: 'confirmation_approved', ...common };
  return {
    kind: 'confirmation_denied',
    ...common,
    reasonCode: 'confirmation_denied',
    error: { code: 'confirmation_denied', message: 'an approver denied the action' },
  };
}

// The run of operator acts about no decision (ADR 0036); defined beside the system's id prefix.
export { OPERATOR_RUN_ID } from '@arvis/contracts';
/** The `tool` of an operator act about no decision: the admin API itself. */
export const OPERATOR_TOOL = 'arvis.admin';

/**
 * The non-final entry of an operator's act through the admin API, naming the operator (ADR 0036).
 * An act about no decision is its own pseudo-decision `arvis.operator.<actId>` in the run
 * `arvis.operator`, under the operator's own tenant and subject; it never enters the inbox, so
 * it never needs a final entry.
 */
export function operatorActionEntry(actId: string, operator: JournalOperator & { tenant: string }, action: JournalOperatorAction): JournalDraft {
  const id = `${OPERATOR_RUN_ID}.${actId}`;
  return {
    kind: 'operator_action',
    decisionId: id,
    runId: OPERATOR_RUN_ID,
    causalId: id,
    tenant: operator.tenant,
    principal: operator.subject,
    tool: OPERATOR_TOOL,
    effectBoundary: 'effect_not_started',
    success: false,
    operator: { issuer: operator.issuer, subject: operator.subject },
    action: clippedAction(action),
  };
}

/**
 * The operator's resolution of a decision that ended effect_state_unknown: a non-final entry of
 * that decision, after its final tool_result, carrying the outcome the operator established
 * outside (effect_completed, or effect_not_started when it did not happen). ADR 0036.
 */
export function effectResolvedEntry(
  facts: CapabilityFacts,
  outcome: 'effect_completed' | 'effect_not_started',
  operator: JournalOperator,
  note: string,
): JournalDraft {
  return {
    kind: 'operator_action',
    ...capabilityFields(facts),
    idempotencyKey: facts.idempotencyKey,
    effectBoundary: outcome,
    success: outcome === 'effect_completed',
    operator,
    action: clippedAction({ name: 'resolve_unknown_effect', target: facts.decisionId, note }),
  };
}
