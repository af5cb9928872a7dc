import { intBetween, mulberry32, pick, shuffled } from './prng';

export type FaultKind =
  | 'kill-authorizer'
  | 'kill-relay'
  | 'kill-dispatcher'
  | 'restart-broker'
  | 'restart-postgres'
  | 'terminate-connections'
  | 'duplicate-decisions'
  | 'duplicate-intents';

export interface ScheduledFault {
  /** Planned moment, in ms after the load starts. */
  atMs: number;
  kind: FaultKind;
  /** For kill-dispatcher: which of the two. */
  target?: 'dispatcher-1' | 'dispatcher-2';
  /** How long a killed or stopped part stays down before it is started again. */
  pauseMs: number;
  /** For duplicate-*: how many messages are sent again. */
  count?: number;
}

export interface ScheduleOptions {
  seconds: number;
  pgRestart: boolean;
}

/** The faults every run has; duplicates twice each so both early and late traffic is replayed. */
export function faultKinds(pgRestart: boolean): FaultKind[] {
  const kinds: FaultKind[] = [
    'kill-authorizer',
    'kill-relay',
    'kill-dispatcher',
    'restart-broker',
    'terminate-connections',
    'duplicate-decisions',
    'duplicate-decisions',
    'duplicate-intents',
    'duplicate-intents',
  ];
  return pgRestart ? [...kinds, 'restart-postgres'] : kinds;
}

/**
 * The same seed gives the same schedule. Faults land between 10 % and 80 % of the load (so the
 * last ones still see traffic), one per equal slot in a seeded order, at a seeded point of the
 * slot's first 80 %, rounded to 100 ms.
 */
export function buildSchedule(seed: number, opts: ScheduleOptions): ScheduledFault[] {
  const rng = mulberry32(seed);
  const kinds = shuffled(rng, faultKinds(opts.pgRestart));
  const windowStart = opts.seconds * 1000 * 0.1;
  const slot = (opts.seconds * 1000 * 0.7) / kinds.length;
  return kinds.map((kind, i) => {
    const atMs = Math.round((windowStart + i * slot + rng() * slot * 0.8) / 100) * 100;
    const pauseMs = intBetween(rng, 10, 40) * 100;
    const fault: ScheduledFault = { atMs, kind, pauseMs };
    if (kind === 'kill-dispatcher') fault.target = pick(rng, ['dispatcher-1', 'dispatcher-2'] as const);
    if (kind === 'duplicate-decisions' || kind === 'duplicate-intents') fault.count = intBetween(rng, 5, 25);
    return fault;
  });
}

export function describeFault(f: ScheduledFault): string {
  const what = f.target ? `${f.kind} (${f.target})` : f.kind;
  const extra = f.count !== undefined ? `${f.count} messages` : `down ${(f.pauseMs / 1000).toFixed(1)} s`;
  return `t+${(f.atMs / 1000).toFixed(1).padStart(5)} s  ${what.padEnd(32)} ${extra}`;
}
