import { z } from 'zod';

/** What a tool declares; the authorizer's policy and the dispatcher's runner read only this. */
export interface ToolSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly idempotent: boolean;
  readonly retryable: boolean;
  readonly sideEffectful: boolean;
  readonly timeoutMs: number;
  readonly maxRisk: number;
  readonly requiresConfirmation: boolean;
  readonly auditRequired: boolean;
  readonly reversible: boolean;
  readonly manifest: {
    /** null for a sovereign tool; a provider name means the effect crosses a trust boundary. */
    readonly provider: string | null;
    readonly dataEgress: boolean;
    readonly dataClass: string;
    readonly requiredConsent: string | null;
  };
}

export const crossesTrustBoundary = (spec: ToolSpec): boolean => spec.manifest.provider !== null;

export function defineTool<I extends z.ZodType, O extends z.ZodType>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  return Object.freeze({ ...spec, manifest: Object.freeze({ ...spec.manifest }) });
}
