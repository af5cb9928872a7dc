import { readFileSync } from 'node:fs';
import type { Harness } from './harness';
import type { RunningApp } from './services';

/** Recovery that notices a lost dispatcher within about a second, for the specs that kill or pause one. */
export const FAST_RECOVERY = { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300' } as const;

/** Whether the app's process is stopped (SIGSTOP): state `T` in /proc. */
export const isStopped = (app: RunningApp): boolean => readFileSync(`/proc/${app.child.pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') ?? false;

/** The notes the demo's notes.append wrote for a decision: how many times its body acted. */
export const notesOf = async (h: Harness, decisionId: string): Promise<number> =>
  Number(
    (await h.query<{ n: string }>('SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1', [decisionId]))[0].n,
  );

/** A decision's journal entries, parsed, in chain order (one run's entries share one chain). */
export const journalEntriesOf = async (h: Harness, decisionId: string): Promise<Record<string, unknown>[]> =>
  (await h.query<{ entry: string }>('SELECT entry FROM journal WHERE decision_id = $1 ORDER BY journal.journal_seq', [decisionId])).map(
    (r) => JSON.parse(r.entry) as Record<string, unknown>,
  );
