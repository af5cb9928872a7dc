import { z } from 'zod';
import { EffectBoundary, JournalKind } from './effect-boundary';
import { DecimalString, IdempotencyKey, Identifier, Rfc3339Utc, Sha256Hex, TraceId } from './primitives';
import { ReasonCode, SPEC_VERSION } from './reason-codes';
import { RetryInfo } from './retry-info';

export const JournalErrorSchema = z.strictObject({
  code: ReasonCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type JournalError = z.infer<typeof JournalErrorSchema>;

/** An approver's comment on a verdict (contracts v7, ADR 0069): one line of text, at most 500 characters. */
export const ApproverComment = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not contain control characters');

/**
 * Who decided a confirmation: the verified token's issuer (`iss`) and subject (`sub`), and the
 * comment they gave with the verdict, if any.
 */
export const JournalApproverSchema = z.strictObject({ issuer: Identifier, subject: Identifier, comment: ApproverComment.optional() });
export type JournalApprover = z.infer<typeof JournalApproverSchema>;

/** Who acted through the admin API: the verified token's issuer (`iss`) and subject (`sub`). */
export const JournalOperatorSchema = z.strictObject({ issuer: Identifier, subject: Identifier });
export type JournalOperator = z.infer<typeof JournalOperatorSchema>;

/** What an operator did (ADR 0036). */
export const OperatorActionName = z.enum([
  'revoke_session',
  'grant_consent',
  'withdraw_consent',
  'allow_egress',
  'deny_egress',
  'resolve_unknown_effect',
  'redrive_dead_letter',
  'discard_dead_letter',
  'release_quarantined',
  'discard_quarantined',
  'rebind_store',
  'end_console_sessions',
  // Contracts v6: the database, restored from an older dump, reconciled with the journal topic (ADR 0055).
  'reconcile_rollback',
]);
export type OperatorActionName = z.infer<typeof OperatorActionName>;

/**
 * The act: its name, what it was done to (a session hash, `tenant/principal/consentKey`,
 * `tenant/provider`, a decision id, `topic/partition/offset`, an outbox seq, a store
 * fingerprint) and the operator's note.
 */
export const JournalOperatorActionSchema = z.strictObject({
  name: OperatorActionName,
  target: z.string().min(1).max(600),
  note: z.string().max(2000).optional(),
});
export type JournalOperatorAction = z.infer<typeof JournalOperatorActionSchema>;

/** Shard 0's chain, the only one of a journal never given more (ADR 0062); shard k's is `shard-<k>`. */
export const MAIN_JOURNAL_CHAIN = 'main';

/**
 * The hash chain an entry belongs to. It is inside the hashed content. Entries hashed before the
 * field existed carry no `chain` key and belong to "main": the default applies when parsing, but
 * a hash is always recomputed from the record as stored or received, never from a parsed copy.
 */
export const JournalChain = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,62}$/, 'a chain name is lowercase letters, digits, "_" or "-", starting with a letter')
  .default(MAIN_JOURNAL_CHAIN);
export type JournalChain = z.output<typeof JournalChain>;

// Fields a writer supplies; the chain fields are added under the chain-head lock.
const draftShape = {
  specVersion: z.literal(SPEC_VERSION),
  kind: JournalKind,
  decisionId: Identifier,
  runId: Identifier,
  causalId: Identifier,
  tenant: Identifier,
  principal: Identifier,
  tool: Identifier,
  capabilityId: Identifier.optional(),
  intentCommitment: Sha256Hex.optional(),
  idempotencyKey: IdempotencyKey.optional(),
  effectBoundary: EffectBoundary,
  success: z.boolean(),
  output: z.unknown().optional(),
  error: JournalErrorSchema.optional(),
  reasonCode: ReasonCode.optional(),
  latencyMs: z.number().int().min(0).optional(),
  retry: RetryInfo.optional(),
  /** The decision whose effect this one's result is: no tool ran for this decision. */
  deduplicatedOf: Identifier.optional(),
  /** Only on confirmation_approved / confirmation_denied: who decided. */
  approver: JournalApproverSchema.optional(),
  /** Only on operator_action: who acted, and what they did. */
  operator: JournalOperatorSchema.optional(),
  action: JournalOperatorActionSchema.optional(),
  recordedAt: Rfc3339Utc,
};

interface KindFields {
  kind: JournalKind;
  effectBoundary: EffectBoundary;
  success: boolean;
  error?: unknown;
  reasonCode?: ReasonCode;
  deduplicatedOf?: string;
  approver?: unknown;
  operator?: unknown;
  action?: { name: OperatorActionName };
  output?: unknown;
}

const LATE_BOUNDARIES: EffectBoundary[] = ['effect_completed', 'effect_failed', 'effect_state_unknown'];

// The kind table of docs/wire-contract.md. Enforced on drafts too, so a writer cannot chain an entry
// that an auditor would later reject.
function enforceKindTable<T extends KindFields>(e: T, ctx: z.RefinementCtx<T>): void {
  const fail = (path: keyof KindFields, message: string): void => {
    ctx.addIssue({ code: 'custom', path: [path], message });
  };
  const expectBoundary = (b: EffectBoundary): void => {
    if (e.effectBoundary !== b) fail('effectBoundary', `${e.kind} requires effectBoundary ${b}`);
  };
  const expectFailure = (): void => {
    if (e.success) fail('success', `${e.kind} cannot be a success`);
  };
  const expectReason = (code?: ReasonCode): void => {
    if (e.reasonCode === undefined) fail('reasonCode', `${e.kind} requires a reasonCode`);
    else if (code !== undefined && e.reasonCode !== code) fail('reasonCode', `${e.kind} requires reasonCode ${code}`);
  };

  if (e.kind !== 'tool_result' && e.deduplicatedOf !== undefined) fail('deduplicatedOf', 'only a tool_result can take another effect\'s result');
  const decided = e.kind === 'confirmation_approved' || e.kind === 'confirmation_denied';
  if (decided && e.approver === undefined) fail('approver', `${e.kind} requires the approver`);
  if (!decided && e.approver !== undefined) fail('approver', 'only an approver\'s verdict names an approver');
  enforceOperatorAction(e, fail);
  enforceLateResult(e, fail);
  switch (e.kind) {
    case 'late_tool_result':
    case 'tool_result':
      if (e.success) {
        if (e.effectBoundary !== 'effect_completed') fail('success', 'success requires effectBoundary effect_completed');
        if (e.error !== undefined) fail('error', 'a successful tool_result cannot carry an error');
        // One meaning per entry: a reason code always explains a failure.
        if (e.reasonCode !== undefined) fail('reasonCode', 'a successful tool_result cannot carry a reasonCode');
      } else {
        expectReason();
      }
      return;
    case 'authorization_refusal':
    case 'admission_refusal':
      expectBoundary('pre_effect_refusal');
      expectFailure();
      expectReason();
      return;
    case 'confirmation_pending':
      expectBoundary('effect_not_started');
      expectFailure();
      expectReason('confirmation_required');
      return;
    case 'audit_incomplete':
      expectFailure();
      expectReason('audit_incomplete');
      return;
    // Progress notes: nothing ran yet, so neither is a success; only a denial has a reason.
    case 'confirmation_approved':
      expectBoundary('effect_not_started');
      expectFailure();
      if (e.reasonCode !== undefined || e.error !== undefined) fail('reasonCode', 'an approval carries no reasonCode or error');
      if (e.output !== undefined) fail('output', 'an approval carries no output');
      return;
    case 'confirmation_denied':
      expectBoundary('effect_not_started');
      expectFailure();
      expectReason('confirmation_denied');
      if (e.output !== undefined) fail('output', 'a denial carries no output');
      return;
  }
}

/** A body's own result after its effect was closed unknown (ADR 0056): a tool_result of a body that ran. */
function enforceLateResult(e: KindFields, fail: (path: keyof KindFields, message: string) => void): void {
  if (e.kind === 'late_tool_result' && !LATE_BOUNDARIES.includes(e.effectBoundary)) {
    fail('effectBoundary', `late_tool_result requires effectBoundary ${LATE_BOUNDARIES.join(', ')}`);
  }
}

/**
 * An operator's act (ADR 0036) is an annotation, never final, and only it names an operator and
 * an action. A resolution of an unknown effect carries the outcome the operator established
 * (effect_completed, a success; or effect_not_started); any other act is effect_not_started
 * (nothing ran because of it).
 */
function enforceOperatorAction(e: KindFields, fail: (path: keyof KindFields, message: string) => void): void {
  if (e.kind !== 'operator_action') {
    if (e.operator !== undefined || e.action !== undefined) fail('operator', 'only an operator_action names an operator and an action');
    return;
  }
  if (e.operator === undefined || e.action === undefined) fail('operator', 'operator_action requires the operator and the action');
  const resolution = e.action?.name === 'resolve_unknown_effect';
  const allowed: EffectBoundary[] = resolution ? ['effect_completed', 'effect_not_started'] : ['effect_not_started'];
  if (!allowed.includes(e.effectBoundary)) fail('effectBoundary', `operator_action ${e.action?.name ?? ''} requires effectBoundary ${allowed.join(' or ')}`);
  if (e.success !== (e.effectBoundary === 'effect_completed')) fail('success', 'an operator_action is a success exactly when it resolves an effect as completed');
  if (e.reasonCode !== undefined || e.error !== undefined) fail('reasonCode', 'an operator_action carries no reasonCode or error');
  if (e.output !== undefined) fail('output', 'an operator_action carries no output');
}

export const JournalEntryDraftSchema = z.strictObject(draftShape).superRefine(enforceKindTable);
export type JournalEntryDraft = z.infer<typeof JournalEntryDraftSchema>;

export const JournalEntrySchema = z
  .strictObject({
    ...draftShape,
    // The chain (hashed); its gap-free sequence, by which the topic copy is deduplicated.
    chain: JournalChain,
    journalSeq: DecimalString,
    prevHash: Sha256Hex,
    hash: Sha256Hex,
    /**
     * The decision's trace (ADR 0028). Not covered by `hash` and not in the journal.entry text:
     * tracing is observability, so it can never change what the chain proves.
     */
    traceId: TraceId.optional(),
  })
  .superRefine(enforceKindTable);
export type JournalEntry = z.infer<typeof JournalEntrySchema>;
