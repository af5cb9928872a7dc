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

/** What a tool can say of an effect looked up by its idempotency key. */
export type Reconciliation =
  | { found: 'completed'; output: unknown }
  /** No effect exists, and none can still land: the action may run again. */
  | { found: 'none' }
  | { found: 'cannot_tell' };

export interface ToolBody {
  readonly name: string;
  execute(invocation: ToolInvocation): Promise<unknown>;
  /**
   * Optional. Asked by recovery when a started effect has no recorded result (its dispatcher
   * died): did the effect with this idempotency key happen? A tool that answers `none` must be
   * sure that nothing can still land; when in doubt, `cannot_tell` (the effect stays unknown).
   */
  reconcile?(lookup: { idempotencyKey: string; capabilityId: string }): Promise<Reconciliation>;
}

export const TOOL_BODIES = Symbol('TOOL_BODIES');
