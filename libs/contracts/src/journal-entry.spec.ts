import { JournalEntryDraftSchema, JournalEntrySchema, type JournalEntryDraft } from './index';

const h = (c: string): string => c.repeat(64);
const base = {
  specVersion: 1 as const,
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'c-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'payments.transfer',
  recordedAt: '2025-01-02T03:04:05.678Z',
};
const chain = { journalSeq: '17', prevHash: h('0'), hash: h('a') };

const completed: JournalEntryDraft = {
  ...base,
  kind: 'tool_result',
  capabilityId: 'cap-1',
  intentCommitment: h('3'),
  idempotencyKey: `idem:${h('6')}`,
  effectBoundary: 'effect_completed',
  success: true,
  output: { transferId: 't-9' },
  latencyMs: 12,
};
const failed: JournalEntryDraft = {
  ...completed,
  effectBoundary: 'effect_state_unknown',
  success: false,
  output: undefined,
  reasonCode: 'tool_timeout',
  error: { code: 'tool_timeout', message: 'no answer within 5000 ms' },
};
const authRefusal: JournalEntryDraft = {
  ...base,
  kind: 'authorization_refusal',
  effectBoundary: 'pre_effect_refusal',
  success: false,
  reasonCode: 'risk_exceeded',
};
const admissionRefusal: JournalEntryDraft = { ...authRefusal, kind: 'admission_refusal', reasonCode: 'effect_context_mismatch' };
const pending: JournalEntryDraft = {
  ...base,
  kind: 'confirmation_pending',
  effectBoundary: 'effect_not_started',
  success: false,
  reasonCode: 'confirmation_required',
};
const auditIncomplete: JournalEntryDraft = {
  ...base,
  kind: 'audit_incomplete',
  effectBoundary: 'effect_completed',
  success: false,
  reasonCode: 'audit_incomplete',
};

const approver = { issuer: 'https://idp.example', subject: 'carol' };
const approved: JournalEntryDraft = { ...base, kind: 'confirmation_approved', effectBoundary: 'effect_not_started', success: false, approver };
const denied: JournalEntryDraft = {
  ...base,
  kind: 'confirmation_denied',
  effectBoundary: 'effect_not_started',
  success: false,
  reasonCode: 'confirmation_denied',
  error: { code: 'confirmation_denied', message: 'an approver denied the action' },
  approver,
};

const operator = { issuer: 'https://idp.example', subject: 'olga' };
const revoked: JournalEntryDraft = {
  ...base,
  kind: 'operator_action',
  effectBoundary: 'effect_not_started',
  success: false,
  operator,
  action: { name: 'revoke_session', target: 'a'.repeat(64), note: 'leaked laptop' },
};
const resolvedCompleted: JournalEntryDraft = {
  ...revoked,
  effectBoundary: 'effect_completed',
  success: true,
  action: { name: 'resolve_unknown_effect', target: 'd-1', note: 'the bank statement shows it' },
};
const resolvedNotStarted: JournalEntryDraft = { ...resolvedCompleted, effectBoundary: 'effect_not_started', success: false };

// A body's result after its effect was closed unknown (ADR 0056): a tool_result's shape, never final.
const lateCompleted: JournalEntryDraft = { ...completed, kind: 'late_tool_result' };
const lateTimeout: JournalEntryDraft = { ...failed, kind: 'late_tool_result', effectBoundary: 'effect_state_unknown', reasonCode: 'tool_timeout', error: { code: 'tool_timeout', message: 'no answer' } };

const commented: JournalEntryDraft = { ...denied, approver: { ...approver, comment: 'wrong account: acc-2 is closed · geschlossen' } };
const valid = { completed, failed, authRefusal, admissionRefusal, pending, auditIncomplete, approved, denied, commented, revoked, resolvedCompleted, resolvedNotStarted, lateCompleted, lateTimeout };

const violations: Array<[string, Record<string, unknown>]> = [
  ['tool_result success outside effect_completed', { ...completed, effectBoundary: 'effect_failed' }],
  ['tool_result success carrying an error', { ...completed, error: { code: 'tool_execution_failed', message: 'x' } }],
  ['tool_result success carrying a reasonCode', { ...completed, reasonCode: 'tool_output_invalid' }],
  ['tool_result failure without reasonCode', { ...failed, reasonCode: undefined }],
  ['authorization_refusal past the pre-effect boundary', { ...authRefusal, effectBoundary: 'effect_not_started' }],
  ['authorization_refusal as a success', { ...authRefusal, success: true }],
  ['authorization_refusal without reasonCode', { ...authRefusal, reasonCode: undefined }],
  ['admission_refusal past the pre-effect boundary', { ...admissionRefusal, effectBoundary: 'effect_started' }],
  ['admission_refusal as a success', { ...admissionRefusal, success: true }],
  ['admission_refusal without reasonCode', { ...admissionRefusal, reasonCode: undefined }],
  ['confirmation_pending with another boundary', { ...pending, effectBoundary: 'pre_effect_refusal' }],
  ['confirmation_pending as a success', { ...pending, success: true }],
  ['confirmation_pending with another reasonCode', { ...pending, reasonCode: 'consent_required' }],
  ['confirmation_pending without reasonCode', { ...pending, reasonCode: undefined }],
  ['audit_incomplete as a success', { ...auditIncomplete, success: true }],
  ['audit_incomplete with another reasonCode', { ...auditIncomplete, reasonCode: 'tool_timeout' }],
  ['audit_incomplete without reasonCode', { ...auditIncomplete, reasonCode: undefined }],
  ['confirmation_approved without its approver', { ...approved, approver: undefined }],
  ['a comment with a line break', { ...approved, approver: { ...approver, comment: 'ok\nthen' } }],
  ['a comment over 500 characters', { ...approved, approver: { ...approver, comment: 'x'.repeat(501) } }],
  ['an operator with a comment', { ...revoked, operator: { issuer: 'https://idp.example', subject: 'op', comment: 'x' } }],
  ['confirmation_approved with an approver lacking the issuer', { ...approved, approver: { subject: 'carol' } }],
  ['confirmation_approved past effect_not_started', { ...approved, effectBoundary: 'effect_completed' }],
  ['confirmation_approved as a success', { ...approved, success: true }],
  ['confirmation_approved with a reasonCode', { ...approved, reasonCode: 'confirmation_required' }],
  ['confirmation_approved with an output', { ...approved, output: { ok: true } }],
  ['confirmation_denied without its approver', { ...denied, approver: undefined }],
  ['confirmation_denied with another reasonCode', { ...denied, reasonCode: 'confirmation_expired' }],
  ['confirmation_denied as a success', { ...denied, success: true }],
  ['an approver on another kind', { ...pending, approver }],
  ['operator_action without its operator', { ...revoked, operator: undefined }],
  ['operator_action without its action', { ...revoked, action: undefined }],
  ['operator_action with an unknown action', { ...revoked, action: { name: 'drop_table', target: 'x' } }],
  ['operator_action with an empty target', { ...revoked, action: { name: 'revoke_session', target: '' } }],
  ['operator_action that is not a resolution past effect_not_started', { ...revoked, effectBoundary: 'effect_completed', success: true }],
  ['operator_action resolving to effect_failed', { ...resolvedCompleted, effectBoundary: 'effect_failed', success: false }],
  ['operator_action resolved as completed but not a success', { ...resolvedCompleted, success: false }],
  ['operator_action resolved as not started but a success', { ...resolvedNotStarted, success: true }],
  ['operator_action with a reasonCode', { ...revoked, reasonCode: 'audit_incomplete' }],
  ['operator_action with an output', { ...resolvedCompleted, output: { ok: true } }],
  ['an operator on another kind', { ...pending, operator }],
  ['an action on another kind', { ...completed, action: revoked.action }],
  ['late_tool_result before any effect', { ...lateTimeout, effectBoundary: 'pre_effect_refusal' }],
  ['late_tool_result of an effect not started', { ...lateTimeout, effectBoundary: 'effect_not_started' }],
  ['late_tool_result success outside effect_completed', { ...lateCompleted, effectBoundary: 'effect_failed' }],
  ['late_tool_result failure without reasonCode', { ...lateTimeout, reasonCode: undefined }],
  ['late_tool_result taking another effect\'s result', { ...lateCompleted, deduplicatedOf: 'd-0' }],
];

describe('journal kind table', () => {
  it.each(Object.entries(valid))('accepts a valid %s entry, as draft and as chained entry', (_name, draft) => {
    expect(JournalEntryDraftSchema.safeParse(draft).success).toBe(true);
    expect(JournalEntrySchema.safeParse({ ...draft, ...chain }).success).toBe(true);
  });

  it.each(violations)('refuses %s, as draft and as chained entry', (_name, draft) => {
    expect(JournalEntryDraftSchema.safeParse(draft).success).toBe(false);
    expect(JournalEntrySchema.safeParse({ ...draft, ...chain }).success).toBe(false);
  });

  it('reports the violated field in the issue path', () => {
    const result = JournalEntrySchema.safeParse({ ...pending, ...chain, reasonCode: 'consent_required' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toEqual([['reasonCode']]);
  });
});

describe('JournalEntrySchema shape', () => {
  it('requires the chain fields on an entry and refuses them on a draft', () => {
    expect(JournalEntrySchema.safeParse(completed).success).toBe(false);
    expect(JournalEntryDraftSchema.safeParse({ ...completed, ...chain }).success).toBe(false);
  });

  it('refuses unknown fields', () => {
    expect(JournalEntrySchema.safeParse({ ...completed, ...chain, note: 'x' }).success).toBe(false);
    expect(
      JournalEntrySchema.safeParse({ ...failed, ...chain, error: { ...failed.error, stack: 'x' } }).success,
    ).toBe(false);
  });

  it('types its fields: decimal journalSeq, hex hashes, reason-code error, non-negative latency', () => {
    expect(JournalEntrySchema.safeParse({ ...completed, ...chain, journalSeq: 17 }).success).toBe(false);
    expect(JournalEntrySchema.safeParse({ ...completed, ...chain, prevHash: 'sha256:x' }).success).toBe(false);
    expect(JournalEntrySchema.safeParse({ ...completed, ...chain, latencyMs: -1 }).success).toBe(false);
    expect(
      JournalEntrySchema.safeParse({ ...failed, ...chain, error: { code: 'oops', message: 'x' } }).success,
    ).toBe(false);
  });
});

describe('journal entry traceId (ADR 0028)', () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('is an optional field of the chained entry, not of a draft (writers never hash it)', () => {
    expect(JournalEntrySchema.safeParse({ ...completed, ...chain, traceId }).success).toBe(true);
    expect(JournalEntryDraftSchema.safeParse({ ...completed, traceId }).success).toBe(false);
  });

  it('must be a valid W3C trace id', () => {
    for (const bad of ['0'.repeat(32), traceId.toUpperCase(), traceId.slice(1), `00-${traceId}-00f067aa0ba902b7-01`]) {
      expect(JournalEntrySchema.safeParse({ ...completed, ...chain, traceId: bad }).success).toBe(false);
    }
  });
});
