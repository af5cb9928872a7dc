import { loadavg } from 'node:os';

/** The 1-minute load average a measurement should start under (a table that started above it is rerun). */
export const QUIET_LOAD = 1.0;

export interface QuietWait {
  /** Seconds waited. */
  waitedS: number;
  /** The 1-minute load average when the wait ended. */
  load: number;
  quiet: boolean;
}

/**
 * Waits until the 1-minute load average is below QUIET_LOAD, or maxWaitS has passed. The bench's
 * own build (and the compared commit's) leave it near 2 on a 2-core machine, and it decays with a
 * one-minute time constant: without the wait every table started "busy".
 */
export async function waitForQuietMachine(
  maxWaitS: number,
  say: (line: string) => void,
  io: { load: () => number; sleep: (ms: number) => Promise<void>; now: () => number } = {
    load: () => loadavg()[0],
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    now: () => Date.now(),
  },
): Promise<QuietWait> {
  const start = io.now();
  const waited = () => (io.now() - start) / 1000;
  let said = -Infinity;
  for (;;) {
    const load = io.load();
    if (load < QUIET_LOAD || waited() >= maxWaitS) return { waitedS: Math.round(waited()), load, quiet: load < QUIET_LOAD };
    if (waited() - said >= 15) {
      say(`waiting for a quiet machine: load average ${load.toFixed(2)} (below ${QUIET_LOAD.toFixed(1)} wanted; at most ${maxWaitS} s)`);
      said = waited();
    }
    await io.sleep(5000);
  }
}
