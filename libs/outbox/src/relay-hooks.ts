/**
 * The relay's crash window, for the fault specs: the broker has acknowledged a batch and its rows
 * are still in the outbox. Production binds NO_RELAY_HOOKS; only the runtime's fault wiring binds
 * another (ADR 0004), so the publishing code holds no fault of its own.
 */
export interface RelayHooks {
  afterPublish(): void;
}

export const NO_RELAY_HOOKS: RelayHooks = { afterPublish() {} };
