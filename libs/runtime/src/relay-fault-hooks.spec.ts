import { NO_RELAY_HOOKS } from '@arvis/outbox';
import { relayHooksFor } from './relay-fault-hooks';

describe('relayHooksFor', () => {
  it('binds nothing unless ARVIS_FAULTS asks for the crash after publish', () => {
    expect(relayHooksFor(undefined)).toBe(NO_RELAY_HOOKS);
    expect(relayHooksFor({})).toBe(NO_RELAY_HOOKS);
    expect(relayHooksFor({ relayCrashAfterPublish: false })).toBe(NO_RELAY_HOOKS);
    expect(relayHooksFor({ relayCrashAfterPublish: true })).not.toBe(NO_RELAY_HOOKS);
  });
});
