import { z } from 'zod';

export const SPEC_VERSION = 1 as const;

// Closed and versioned: adding a code is a contract change, so consumers can pin the version
// they were built against instead of discovering new codes in production.
// v2 (docs/upgrading.md): `identity_invalid` on DLQ records, with an optional `decisionId`;
// recovery's own codes, `idempotency_key_in_use`, `message_unprocessable` and `decision_unprocessable`.
// v3: optional journal entry fields `chain` (hashed) and `traceId` (outside the hash), the
// checkpoint record on the journal topic, and the non-final journal kinds
// `confirmation_approved` / `confirmation_denied` with their `approver` field (ADR 0032); no new code.
// v4: the non-final kind `operator_action` with `operator` and `action` (ADR 0036), and the
// optional `identitySha256` on DLQ records (ADR 0035); no new code.
// v5: the operator act `end_console_sessions` (ADR 0037); no new code.
// v6: the non-final kind `late_tool_result` (ADR 0056) and the operator act `reconcile_rollback` (ADR 0055); no new code.
// v7: decisionId, runId and causalId are unique per tenant (ADR 0061): the journal may hold two final
// entries with one decisionId, of two tenants; a reader keys a decision by (tenant, decisionId); no new code.
// v8: the journal is in chains (ADR 0062): journalSeq is gap-free within its chain, so a reader keys
// an entry by (chain, journalSeq) and checks each chain apart; shapes unchanged; no new code.
// v9: an approver's verdict may carry `approver.comment` (ADR 0069); no new code.
export const REASON_CODES_VERSION = 9 as const;

export const ReasonCode = z.enum([
  'malformed_message',
  'payload_too_large',
  'unsupported_spec_version',
  'decision_conflict',
  'identity_invalid',
  'invalid_effect_payload',
  'unknown_tool',
  'frozen_surface_diverged',
  'input_schema_violation',
  'risk_exceeded',
  'consent_required',
  'consent_gate_missing',
  'egress_denied',
  'egress_gate_missing',
  'confirmation_required',
  'confirmation_denied',
  'confirmation_expired',
  'authenticated_principal_required',
  'effect_context_mismatch',
  'untrusted_tool_authorization_outcome',
  'invalid_audit_receipt',
  'audit_receipt_position_reused',
  'audit_intent_failed',
  'capability_activation_failed',
  'tool_execution_failed',
  'tool_timeout',
  'tool_output_invalid',
  'audit_incomplete',
  // Version 2. Recovery: the dispatcher that claimed the capability is gone, before its body
  // started (nothing ran) or while it ran (it may have acted).
  'dispatcher_lost_before_effect',
  'dispatcher_lost_during_effect',
  // Version 2. Another decision with the same idempotency key held it and its effect did not
  // happen (failed, refused, never started): this one did not run either, and may be retried.
  'idempotency_key_in_use',
  // Contracts v2: a message whose handling failed every time, isolated so its partition moves on.
  'message_unprocessable',
  'decision_unprocessable',
]);
export type ReasonCode = z.infer<typeof ReasonCode>;
