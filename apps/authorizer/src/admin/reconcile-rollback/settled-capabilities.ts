import type { JournalEntry, ReasonCode } from '@arvis/contracts';

/** What a lost entry says became of a capability, as the database must now hold it. */
export interface SettledCapability {
  capabilityId: string;
  /** consumed: a body ran (or may have); revoked: nothing ran, with the refusal's reason code. */
  state: 'consumed' | 'revoked';
  reason: ReasonCode | null;
  /** The entry's time: when it was used, as near as the journal knows. */
  at: string;
}

/**
 * The capabilities the lost entries show used (ADR 0055). A `tool_result` or `audit_incomplete`
 * naming a capability says it was consumed, unless the result is a `pre_effect_refusal` (the
 * capability was revoked with that reason, as `cli verify` expects of such a result). The last
 * entry naming a capability wins. These are the capabilities that must never be consumed again.
 */
export function settledCapabilitiesOf(entries: readonly JournalEntry[]): SettledCapability[] {
  const byId = new Map<string, SettledCapability>();
  for (const e of entries) {
    if (!e.capabilityId || (e.kind !== 'tool_result' && e.kind !== 'audit_incomplete')) continue;
    const refused = e.kind === 'tool_result' && e.effectBoundary === 'pre_effect_refusal';
    byId.set(e.capabilityId, { capabilityId: e.capabilityId, state: refused ? 'revoked' : 'consumed', reason: refused ? (e.reasonCode ?? null) : null, at: e.recordedAt });
  }
  return [...byId.values()];
}
