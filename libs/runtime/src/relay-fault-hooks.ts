import type { Faults } from '@arvis/config';
import { NO_RELAY_HOOKS, type RelayHooks } from '@arvis/outbox';

/** The relay's fault point from ARVIS_FAULTS (test profile only): die between publish and delete. */
export function relayHooksFor(faults: Faults | undefined): RelayHooks {
  if (faults?.relayCrashAfterPublish !== true) return NO_RELAY_HOOKS;
  return { afterPublish: () => process.kill(process.pid, 'SIGKILL') };
}
