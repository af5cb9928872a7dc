import type { EffectBoundary, ReasonCode } from '@arvis/contracts';
import { toolErrorDetails } from '@arvis/tool-sdk';

export type ToolOutcome =
  | { kind: 'returned'; output: unknown; latencyMs: number }
  | { kind: 'threw'; error: Error; latencyMs: number }
  | { kind: 'timed_out'; timeoutMs: number; latencyMs: number }
  | { kind: 'input_invalid'; detail: string }
  | { kind: 'not_available'; detail: string };

export interface Classified {
  effectBoundary: EffectBoundary;
  success: boolean;
  reasonCode?: ReasonCode;
  output?: unknown;
  error?: { code: ReasonCode; message: string; details?: Record<string, unknown> };
  latencyMs?: number;
}

/**
 * One boundary state per result. A timeout is effect_state_unknown, never failed: the tool was
 * signalled to abort but may already have acted.
 */
export function classifyResult(outcome: ToolOutcome, validateOutput: (o: unknown) => string | null): Classified {
  switch (outcome.kind) {
    case 'input_invalid':
      return refusal('pre_effect_refusal', 'input_schema_violation', outcome.detail);
    case 'not_available':
      return refusal('pre_effect_refusal', 'unknown_tool', outcome.detail);
    case 'threw': {
      // A ToolError's own code goes in the details; the reason code stays the closed set's (ADR 0076).
      const details = toolErrorDetails(outcome.error);
      return {
        effectBoundary: 'effect_failed',
        success: false,
        reasonCode: 'tool_execution_failed',
        error: { code: 'tool_execution_failed', message: outcome.error.message, ...(details ? { details: { ...details } } : {}) },
        latencyMs: outcome.latencyMs,
      };
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
      if (problem !== null) {
        return {
          effectBoundary: 'effect_completed',
          success: false,
          reasonCode: 'tool_output_invalid',
          error: { code: 'tool_output_invalid', message: problem },
          latencyMs: outcome.latencyMs,
        };
      }
      return { effectBoundary: 'effect_completed', success: true, output: outcome.output, latencyMs: outcome.latencyMs };
    }
  }
}

function refusal(effectBoundary: EffectBoundary, code: ReasonCode, message: string): Classified {
  return { effectBoundary, success: false, reasonCode: code, error: { code, message } };
}
