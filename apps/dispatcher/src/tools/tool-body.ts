import type { AuthorizedEffectContext } from '@arvis/effect-context';

/** Everything a tool may act on. Its dependencies come through its constructor, never from here. */
export interface ToolInvocation {
  readonly payload: Readonly<Record<string, unknown>>;
  readonly effectContext: AuthorizedEffectContext;
  readonly idempotencyKey: string;
  readonly signal: AbortSignal;
  /** Stable per capability; tools that record effects key them by it. */
  readonly capabilityId: string;
}

export interface ToolBody {
  readonly name: string;
  execute(invocation: ToolInvocation): Promise<unknown>;
}

export const TOOL_BODIES = Symbol('TOOL_BODIES');
