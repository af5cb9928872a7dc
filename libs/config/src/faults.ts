import { z } from 'zod';

const ForDecisions = { decisionIdPrefix: z.string().min(1) };

/**
 * Named crash windows and sink failures, for fault specs only. They are read from ARVIS_FAULTS
 * (JSON) and refused in the production profile, so no production deployment can enable one.
 */
export const FaultsSchema = z.strictObject({
  /** The relay kills itself (SIGKILL) after the broker acknowledged a batch, before marking it. */
  relayCrashAfterPublish: z.boolean().optional(),
  /** The relay pauses itself (SIGSTOP) once, after the broker acknowledged a batch, before deleting its rows. */
  relayPauseAfterPublish: z.boolean().optional(),
  /** The intent sink returns a receipt altered in one field, for decisions with this prefix. */
  receiptTamper: z
    .array(
      z.strictObject({
        ...ForDecisions,
        field: z.enum(['shape', 'receiptId', 'causalId', 'durablePosition', 'storeFingerprint', 'committedAt', 'intent', 'run', 'causal', 'fingerprint']),
      }),
    )
    .optional(),
  /** The intent sink reuses a durable position already accepted. */
  receiptReusePosition: z.array(z.strictObject(ForDecisions)).optional(),
  /** The intent insert fails. */
  intentInsertFails: z.array(z.strictObject(ForDecisions)).optional(),
  /** The dispatcher kills itself inside the tool: after the body acted, before the result. */
  dispatcherCrashInsideTool: z.array(z.strictObject(ForDecisions)).optional(),
  /**
   * The dispatcher signals itself around a body's start marker: `before_marker` is after
   * effect_started committed and before the marker (the body certainly has not begun),
   * `after_marker` is after the marker committed and before the body's first statement.
   * SIGKILL ends it there; SIGSTOP pauses it there until a spec sends SIGCONT.
   */
  dispatcherSignalAtBodyStart: z
    .array(z.strictObject({ ...ForDecisions, at: z.enum(['before_marker', 'after_marker']), signal: z.enum(['SIGKILL', 'SIGSTOP']) }))
    .optional(),
  /** Journaling a tool result fails (every attempt) after the effect. */
  journalResultFails: z.array(z.strictObject(ForDecisions)).optional(),
  /** The authorizer mints against a catalog whose fingerprint no dispatcher accepts. */
  authorizerCatalogSkew: z.boolean().optional(),
  /** The authorizer fails (every time) on a slice that holds a decision with this prefix. */
  decisionHandlingFails: z.array(z.strictObject(ForDecisions)).optional(),
  /** The dispatcher kills itself after receiving the intent, before consuming the capability. */
  dispatcherCrashBeforeConsume: z.array(z.strictObject(ForDecisions)).optional(),
});

export type Faults = z.infer<typeof FaultsSchema>;

export const faultsEnv = z.preprocess((v) => {
  if (v === undefined || v === '') return {};
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return { __invalidJson: true };
  }
}, FaultsSchema);

export const hasFaults = (f: Faults): boolean => Object.values(f).some((v) => v !== undefined && v !== false);

/** The fault entry (if any) that applies to a decision. */
export function faultFor<T extends { decisionIdPrefix: string }>(list: T[] | undefined, decisionId: string): T | undefined {
  return list?.find((f) => decisionId.startsWith(f.decisionIdPrefix));
}
