import { REASON_CODES_VERSION, ReasonCode, SPEC_VERSION } from './index';

describe('reason codes', () => {
  it('lists exactly the 33 codes of version 2 (docs/wire-contract.md), in order', () => {
    expect(ReasonCode.options).toEqual([
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
      'dispatcher_lost_before_effect',
      'dispatcher_lost_during_effect',
      'idempotency_key_in_use',
      'message_unprocessable',
      'decision_unprocessable',
    ]);
    expect(ReasonCode.options).toHaveLength(33);
  });

  it('is closed: an unknown code is refused', () => {
    expect(ReasonCode.safeParse('something_else').success).toBe(false);
  });

  it('pins the contract versions', () => {
    expect(REASON_CODES_VERSION).toBe(9);
    expect(SPEC_VERSION).toBe(1);
  });
});
