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
