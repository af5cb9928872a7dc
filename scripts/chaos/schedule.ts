import { intBetween, mulberry32, pick, shuffled } from './prng';

export type FaultKind =
  | 'kill-authorizer'
  | 'kill-relay'
  | 'kill-dispatcher'
  | 'restart-broker'
  | 'restart-postgres'
  | 'terminate-connections'
  | 'duplicate-decisions'
  | 'duplicate-intents'
  | 'pause-dispatcher'
  | 'pause-app'
  | 'operator-on-duty';

export type PauseTarget = 'dispatcher-1' | 'dispatcher-2' | 'authorizer' | 'relay';

export interface ScheduledFault {
  /** Planned moment, in ms after the load starts. */
  atMs: number;
  kind: FaultKind;
  /** For kill-dispatcher and pause-dispatcher: which of the two; for pause-app: authorizer or relay. */
  target?: PauseTarget;
  /**
   * How long a killed or stopped part stays down before it is started again; for pause-*, how
   * long it stays SIGSTOPped before SIGCONT (longer than an effect's deadline, shorter than
   * EFFECT_MAX_OVERRUN_MS: see PAUSE_MS).
   */
  pauseMs: number;
  /** For operator-on-duty: how often the operator looks, from this moment to the end of the run. */
  everyMs?: number;
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
    'pause-dispatcher',
    'pause-app',
    'operator-on-duty',
  ];
  return pgRestart ? [...kinds, 'restart-postgres'] : kinds;
}

/**
 * A pause outlasts an effect's deadline (the demo tools' 5 s timeout + the suite's 3 s recovery
 * grace, apps.ts) and the next recovery pass, so recovery closes what the paused process had in
 * flight while it is stopped; and it stays under the suite's EFFECT_MAX_OVERRUN_MS (20 s), the
 * longest a body may still act after its deadline, so the resumed body acts within the bound
 * the operator's "not happened" waits for (ADR 0056).
 */
export const PAUSE_MS = { min: 10_000, max: 16_000 } as const;

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
    const paused = kind === 'pause-dispatcher' || kind === 'pause-app';
    const pauseMs = paused ? intBetween(rng, PAUSE_MS.min / 100, PAUSE_MS.max / 100) * 100 : intBetween(rng, 10, 40) * 100;
    const fault: ScheduledFault = { atMs, kind, pauseMs };
    if (kind === 'kill-dispatcher' || kind === 'pause-dispatcher') fault.target = pick(rng, ['dispatcher-1', 'dispatcher-2'] as const);
    if (kind === 'pause-app') fault.target = pick(rng, ['authorizer', 'relay'] as const);
    if (kind === 'operator-on-duty') fault.everyMs = intBetween(rng, 15, 30) * 100;
    if (kind === 'duplicate-decisions' || kind === 'duplicate-intents') fault.count = intBetween(rng, 5, 25);
    return fault;
  });
}

export function describeFault(f: ScheduledFault): string {
  const what = f.target ? `${f.kind} (${f.target})` : f.kind;
  const extra =
    f.count !== undefined
      ? `${f.count} messages`
      : f.everyMs !== undefined
        ? `from here to the end, a look every ${(f.everyMs / 1000).toFixed(1)} s`
        : f.kind.startsWith('pause-')
          ? `SIGSTOP, SIGCONT after ${(f.pauseMs / 1000).toFixed(1)} s`
          : `down ${(f.pauseMs / 1000).toFixed(1)} s`;
  return `t+${(f.atMs / 1000).toFixed(1).padStart(5)} s  ${what.padEnd(32)} ${extra}`;
}
