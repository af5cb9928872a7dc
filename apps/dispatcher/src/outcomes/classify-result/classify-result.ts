import type { EffectBoundary, ReasonCode } from '@arvis/contracts';
import { classifyOutcome, type BodyOutcome, type BodyResult } from '@arvis/tool-sdk';

// The classification is the SDK's (libs/tool-sdk/src/run-body.ts), one copy for the dispatcher
// and for a package's own tests (@arvis/tool-sdk/testing); here it is typed by the contract.
export type ToolOutcome = BodyOutcome;

export interface Classified {
  effectBoundary: EffectBoundary;
  success: boolean;
  reasonCode?: ReasonCode;
  output?: unknown;
  error?: { code: ReasonCode; message: string; details?: Record<string, unknown> };
  latencyMs?: number;
}

/** Fails to compile if the SDK's boundaries or reason codes leave the contract's closed sets. */
export const asClassified = (r: BodyResult): Classified => r;

export function classifyResult(outcome: ToolOutcome, validateOutput: (o: unknown) => string | null): Classified {
  return classifyOutcome(outcome, validateOutput);
}
