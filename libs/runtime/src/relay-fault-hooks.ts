import type { Faults } from '@arvis/config';
import { NO_RELAY_HOOKS, type RelayHooks } from '@arvis/outbox';

/** The relay's fault point from ARVIS_FAULTS (test profile only): die, or pause once, between publish and delete. */
export function relayHooksFor(faults: Faults | undefined): RelayHooks {
  if (faults?.relayCrashAfterPublish === true) return { afterPublish: () => process.kill(process.pid, 'SIGKILL') };
  if (faults?.relayPauseAfterPublish === true) {
    let paused = false;
    return {
      afterPublish: () => {
        if (paused) return;
        paused = true;
        process.kill(process.pid, 'SIGSTOP');
      },
    };
  }
  return NO_RELAY_HOOKS;
}
