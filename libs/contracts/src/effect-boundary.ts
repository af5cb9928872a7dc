import { z } from 'zod';

// Every result carries exactly one of these; recovery relies on the distinction between
// "did not start" (confirmation may be released) and "may have acted" (it is spent).
export const EffectBoundary = z.enum([
  'pre_effect_refusal',
  'effect_not_started',
  'effect_started',
  'effect_completed',
  'effect_failed',
  'effect_state_unknown',
]);
export type EffectBoundary = z.infer<typeof EffectBoundary>;

export const JournalKind = z.enum([
  'tool_result',
  'authorization_refusal',
  'admission_refusal',
  'confirmation_pending',
  'audit_incomplete',
  // An approver's verdict on a parked decision, naming the approver (reason codes v3, ADR 0032).
  'confirmation_approved',
  'confirmation_denied',
  // An operator's act through the admin API, naming the operator (ADR 0036); never final.
  'operator_action',
  // The result of a body that settled after its effect was closed unknown (it timed out, or
  // recovery called it lost): recorded, never final (reason codes v6, ADR 0056).
  'late_tool_result',
]);
export type JournalKind = z.infer<typeof JournalKind>;

// Each decision gets exactly one final entry; the others are progress notes that may precede it.
export const FINAL_JOURNAL_KINDS: ReadonlySet<JournalKind> = new Set<JournalKind>([
  'tool_result',
  'authorization_refusal',
  'admission_refusal',
]);

export function isFinalKind(kind: JournalKind): boolean {
  return FINAL_JOURNAL_KINDS.has(kind);
}
