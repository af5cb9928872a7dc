/** The reason codes a body may give when it refuses before acting (a subset of the contract's). */
export type NotStartedReason = 'frozen_surface_diverged';

/**
 * Thrown by a body that refuses before it has acted, e.g. a remote tool whose live declaration
 * no longer matches the one its package pinned: the effect ends `effect_not_started` with this
 * reason instead of `effect_failed` (ADR 0078). Throw it only when nothing was sent; a body that
 * may have acted throws any other error. The dispatcher recognises it by its name and reason, so a
 * package may bring its own copy of the SDK.
 */
export class EffectNotStartedError extends Error {
  override readonly name = 'EffectNotStartedError';
  constructor(
    readonly reasonCode: NotStartedReason,
    message: string,
  ) {
    super(message);
  }
}
