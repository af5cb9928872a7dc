import { BodyClock } from './body-clock';
import { HeartbeatPacer } from './heartbeat-pacer';
import type { NotStartedReason } from './not-started';
import { toolErrorDetails } from './tool-error';
import type { ToolSpec } from './tool';

// The one copy of how a body is run and its result classified: the dispatcher runs every body
// through it, and @arvis/tool-sdk/testing runs a package's bodies through it in its own tests.

export type BodyOutcome =
  | { kind: 'returned'; output: unknown; latencyMs: number }
  | { kind: 'threw'; error: Error; latencyMs: number }
  | { kind: 'timed_out'; timeoutMs: number; latencyMs: number }
  | { kind: 'input_invalid'; detail: string }
  | { kind: 'not_available'; detail: string };

/** One result with its effect boundary and reason code, as the journal records it. */
export interface BodyResult {
  effectBoundary: 'effect_completed' | 'effect_failed' | 'effect_state_unknown' | 'pre_effect_refusal' | 'effect_not_started';
  success: boolean;
  reasonCode?: 'input_schema_violation' | 'unknown_tool' | 'tool_execution_failed' | 'tool_timeout' | 'tool_output_invalid' | NotStartedReason;
  output?: unknown;
  error?: { code: NonNullable<BodyResult['reasonCode']>; message: string; details?: Record<string, unknown> };
  latencyMs?: number;
}

/** What the runner hands a body besides its caller's own fields (ids, context, db, logger). */
export interface BodyControls {
  readonly input: unknown;
  readonly signal: AbortSignal;
  heartbeat(): void;
}

export interface BodyRunOptions {
  /**
   * Writes a heartbeat into the effect's stored deadline (ADR 0077); the body's timer moves only
   * once it resolved true. Absent: heartbeat() is a no-op.
   */
  extendDeadline?: (timeoutMs: number, maxRunMs: number) => Promise<boolean>;
  onHeartbeatError?: (e: Error) => void;
  /** Right before the body is called (the input has validated). */
  beforeStart?: () => void;
  /** Right after the body returned, before its output is checked. */
  afterReturn?: () => void;
  /** How the body ended (returned, threw, timed_out) and after how long. */
  observe?: (kind: BodyOutcome['kind'], latencyMs: number) => void;
  /** The body's own result when it settles after its timeout was classified (ADR 0056). */
  onLateSettle?: (late: BodyResult) => void;
}

type BodySpec = Pick<ToolSpec, 'name' | 'input' | 'output' | 'timeoutMs' | 'maxRunMs'>;

/**
 * Parses the payload with the tool's input schema, runs the body under its timeout (moved by
 * written heartbeats, never past maxRunMs), parses what it returns with the output schema and
 * classifies the outcome.
 */
export async function runBody(spec: BodySpec, execute: (c: BodyControls) => Promise<unknown>, payload: unknown, opts: BodyRunOptions = {}): Promise<BodyResult> {
  const validateOutput = (o: unknown) => outputProblem(spec, o);
  const input = spec.input.safeParse(payload);
  if (!input.success) return classifyOutcome({ kind: 'input_invalid', detail: input.error.message }, validateOutput);
  opts.beforeStart?.();
  const clock = new BodyClock(spec.timeoutMs);
  // Through a promise, so a body that throws before returning one is classified like any failure.
  const execution = Promise.resolve()
    .then(() => execute({ input: input.data, signal: clock.controller.signal, heartbeat: heartbeatOf(spec, clock, opts) }))
    .then(
      (output): BodyOutcome => {
        opts.afterReturn?.();
        return { kind: 'returned', output, latencyMs: clock.elapsed() };
      },
      (error: unknown): BodyOutcome => ({ kind: 'threw', error: error instanceof Error ? error : new Error(String(error)), latencyMs: clock.elapsed() }),
    );
  try {
    const first = await Promise.race([execution, clock.timedOut]);
    if ('latencyMs' in first) opts.observe?.(first.kind, first.latencyMs);
    const late = opts.onLateSettle;
    if (first.kind === 'timed_out' && late) void execution.then((o) => late(classifyOutcome(o, validateOutput)));
    return classifyOutcome(first, validateOutput);
  } finally {
    clock.clear();
  }
}

/**
 * A no-op unless the tool declares a maximum run time beyond its timeout and heartbeats can be
 * written: no statement, no state for any other tool. Otherwise each counted heartbeat is one
 * write of the stored deadline, and then the body's own abort time (ADR 0077).
 */
function heartbeatOf(spec: BodySpec, clock: BodyClock, opts: BodyRunOptions): () => void {
  const maxRunMs = spec.maxRunMs ?? spec.timeoutMs;
  const extend = opts.extendDeadline;
  if (maxRunMs <= spec.timeoutMs || !extend) return NO_HEARTBEAT;
  const pacer = new HeartbeatPacer(spec.timeoutMs, maxRunMs);
  return () => {
    const at = clock.now();
    if (clock.settled || !pacer.beat(at)) return;
    extend(spec.timeoutMs, maxRunMs).then(
      (moved) => (moved ? clock.abortAt(pacer.written(at)) : pacer.close()),
      (e: Error) => {
        pacer.failed();
        opts.onHeartbeatError?.(e);
      },
    );
  };
}

const NO_HEARTBEAT = (): void => {};

/** Why the output schema refuses `o`, or null. */
export function outputProblem(spec: Pick<ToolSpec, 'output'>, o: unknown): string | null {
  const r = spec.output.safeParse(o);
  return r.success ? null : r.error.issues.map((i) => `${i.path.join('.') || '(output)'}: ${i.message}`).join('; ');
}

/**
 * One boundary state per result. A timeout is effect_state_unknown, never failed: the tool was
 * signalled to abort but may already have acted.
 */
export function classifyOutcome(outcome: BodyOutcome, validateOutput: (o: unknown) => string | null): BodyResult {
  switch (outcome.kind) {
    case 'input_invalid':
      return refusal('input_schema_violation', outcome.detail);
    case 'not_available':
      return refusal('unknown_tool', outcome.detail);
    case 'threw': {
      // A body that refused before acting (ADR 0078): nothing happened, so not a failure.
      const notStarted = notStartedReason(outcome.error);
      if (notStarted) return { effectBoundary: 'effect_not_started', success: false, reasonCode: notStarted, error: { code: notStarted, message: outcome.error.message }, latencyMs: outcome.latencyMs };
      // A ToolError's own code goes in the details; the reason code stays the closed set's (ADR 0076).
      const details = toolErrorDetails(outcome.error);
      const error = { code: 'tool_execution_failed' as const, message: outcome.error.message, ...(details ? { details: { ...details } } : {}) };
      return { effectBoundary: 'effect_failed', success: false, reasonCode: 'tool_execution_failed', error, latencyMs: outcome.latencyMs };
    }
    case 'timed_out':
      return {
        effectBoundary: 'effect_state_unknown',
        success: false,
        reasonCode: 'tool_timeout',
        error: { code: 'tool_timeout', message: `no answer within ${outcome.timeoutMs} ms` },
        latencyMs: outcome.latencyMs,
      };
    case 'returned': {
      const problem = validateOutput(outcome.output);
      if (problem === null) return { effectBoundary: 'effect_completed', success: true, output: outcome.output, latencyMs: outcome.latencyMs };
      return { effectBoundary: 'effect_completed', success: false, reasonCode: 'tool_output_invalid', error: { code: 'tool_output_invalid', message: problem }, latencyMs: outcome.latencyMs };
    }
  }
}

// Recognised by name and code, not instanceof: a package may bring its own copy of the SDK.
const NOT_STARTED_REASONS: ReadonlySet<string> = new Set<NotStartedReason>(['frozen_surface_diverged']);

function notStartedReason(error: Error): NotStartedReason | null {
  const code = (error as { reasonCode?: unknown }).reasonCode;
  return error.name === 'EffectNotStartedError' && typeof code === 'string' && NOT_STARTED_REASONS.has(code) ? (code as NotStartedReason) : null;
}

function refusal(code: 'input_schema_violation' | 'unknown_tool', message: string): BodyResult {
  return { effectBoundary: 'pre_effect_refusal', success: false, reasonCode: code, error: { code, message } };
}
