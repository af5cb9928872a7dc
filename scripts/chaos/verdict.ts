/** What the suite counted after quiescence, from the database and its own bookkeeping. */
export interface ChaosCounts {
  sent: number;
  /** Distinct final_decision_id in the journal table among the decisions sent. */
  finalEntries: number;
  /** Decisions sent with more than one final journal row. */
  decisionsWithSeveralFinals: number;
  /** Most tool-body starts (markers) for one capability. */
  maxExecutionsPerCapability: number;
  /** Most effect rows for one idempotency key in one tool's own table. */
  maxEffectsPerKey: number;
  keysWithSeveralEffects: number;
  unknownEffects: number;
  /** Unknown effects whose body never wrote its start marker: it certainly did not act. */
  unknownWithoutMarker: number;
  /** Effects still effect_started after quiescence: recovery never closed them. */
  effectsStillStarted: number;
  auditIncompleteRuns: number;
  dlqRecords: number;
  /** Child exits the suite did not cause (kill -9 and the final stop are its own). */
  unexpectedExits: number;
  /** Effects closed effect_not_started (recovery's fence, a claim never started, an operator) whose body acted all the same. */
  notStartedButActed: number;
  /** Effects of paused (SIGSTOP, then SIGCONT) dispatchers with a late result recorded (ADR 0056). */
  lateResults: number;
  /** Their effects closed unknown whose body acted and whose late result was not recorded. */
  pausedActedWithoutLateResult: number;
  /** Requests the operator made through the admin API (resolutions, releases), refusals included. */
  operatorActs: number;
  /** Operator "not happened" refused with effect_may_still_run: the guard doing its work. */
  operatorRefusedMayStillRun: number;
  /** Operator "not happened" that the effects table shows taken while the body may still have run. */
  notHappenedWhileMayRun: number;
  /** Unknown effects the operator had not resolved after the settle. */
  unresolvedUnknown: number;
}

export interface Check {
  name: string;
  value: number;
  expected: string;
  ok: boolean;
}

/** One row per guarantee; the run fails if any row is not ok. */
export function verdict(c: ChaosCounts): Check[] {
  const atMost = (name: string, value: number, max: number): Check => ({ name, value, expected: `<= ${max}`, ok: value <= max });
  return [
    { name: 'decisions sent', value: c.sent, expected: '> 0', ok: c.sent > 0 },
    { name: 'final journal entries', value: c.finalEntries, expected: `= ${c.sent}`, ok: c.finalEntries === c.sent },
    atMost('decisions with several finals', c.decisionsWithSeveralFinals, 0),
    atMost('max executions per capability', c.maxExecutionsPerCapability, 1),
    atMost('max effects per idempotency key', c.maxEffectsPerKey, 1),
    atMost('keys with several effects', c.keysWithSeveralEffects, 0),
    { name: 'unknown effects (with marker)', value: c.unknownEffects - c.unknownWithoutMarker, expected: 'any', ok: true },
    atMost('unknown effects without marker', c.unknownWithoutMarker, 0),
    atMost('effects still started', c.effectsStillStarted, 0),
    atMost('audit-incomplete runs', c.auditIncompleteRuns, 0),
    atMost('DLQ records', c.dlqRecords, 0),
    atMost('unexpected process exits', c.unexpectedExits, 0),
    atMost('not-started effects that acted', c.notStartedButActed, 0),
    { name: 'late results (paused dispatchers)', value: c.lateResults, expected: 'any', ok: true },
    atMost('paused bodies acted, no late result', c.pausedActedWithoutLateResult, 0),
    { name: 'operator acts', value: c.operatorActs, expected: 'any', ok: true },
    { name: 'operator refused: may still run', value: c.operatorRefusedMayStillRun, expected: 'any', ok: true },
    atMost('not happened while it may run', c.notHappenedWhileMayRun, 0),
    atMost('unknown effects left unresolved', c.unresolvedUnknown, 0),
  ];
}

export const violations = (checks: Check[]): Check[] => checks.filter((k) => !k.ok);

export function formatTable(checks: Check[]): string {
  const w = Math.max(...checks.map((k) => k.name.length));
  const lines = checks.map((k) => `${k.name.padEnd(w)}  ${String(k.value).padStart(7)}  ${k.expected.padEnd(9)}  ${k.ok ? 'ok' : 'VIOLATION'}`);
  const head = `${'check'.padEnd(w)}  ${'value'.padStart(7)}  ${'expected'.padEnd(9)}  verdict`;
  return [head, '-'.repeat(head.length + 2), ...lines].join('\n');
}
