import type { JournalEntry } from '@arvis/contracts';
import { settledCapabilitiesOf } from './settled-capabilities';

const entry = (over: Partial<JournalEntry>): JournalEntry => ({ kind: 'tool_result', effectBoundary: 'effect_completed', recordedAt: '2026-12-01T00:00:00.000Z', ...over }) as JournalEntry;

describe('the capabilities lost entries show used', () => {
  it('settles a result as consumed, a pre-effect refusal as revoked with its reason, and skips entries naming none', () => {
    expect(
      settledCapabilitiesOf([
        entry({ capabilityId: 'a' }),
        entry({ capabilityId: 'b', effectBoundary: 'pre_effect_refusal', reasonCode: 'capability_activation_failed' }),
        entry({ capabilityId: 'c', kind: 'audit_incomplete', effectBoundary: 'effect_state_unknown' }),
        entry({ kind: 'authorization_refusal', effectBoundary: 'pre_effect_refusal' }),
        entry({ kind: 'confirmation_pending', capabilityId: 'd' }),
      ]),
    ).toEqual([
      { capabilityId: 'a', state: 'consumed', reason: null, at: '2026-12-01T00:00:00.000Z' },
      { capabilityId: 'b', state: 'revoked', reason: 'capability_activation_failed', at: '2026-12-01T00:00:00.000Z' },
      { capabilityId: 'c', state: 'consumed', reason: null, at: '2026-12-01T00:00:00.000Z' },
    ]);
  });
});
