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

/** The one method of the tools' own pool a marker needs (a pg Pool or client). */
export interface MarkerConnection {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/**
 * Records, in its own autocommitted statement on the tool's connection, that this body is about
 * to act. A crash after this line may have acted; a crash before it certainly did not, which is
 * what an effect_state_unknown is checked against (the chaos suite, ADR 0019).
 */
export async function markBodyStart(db: MarkerConnection, tool: string, capabilityId: string): Promise<void> {
  await db.query('INSERT INTO tool_body_starts (capability_id, tool) VALUES ($1, $2)', [capabilityId, tool]);
}
