import { verdict, violations, type ChaosCounts } from './verdict';

const clean: ChaosCounts = {
  sent: 100,
  finalEntries: 100,
  decisionsWithSeveralFinals: 0,
  maxExecutionsPerCapability: 1,
  maxEffectsPerKey: 1,
  keysWithSeveralEffects: 0,
  unknownEffects: 2,
  unknownWithoutMarker: 0,
  effectsStillStarted: 0,
  auditIncompleteRuns: 0,
  dlqRecords: 0,
  unexpectedExits: 0,
  notStartedButActed: 0,
  lateResults: 3,
  pausedActedWithoutLateResult: 0,
  operatorActs: 12,
  operatorRefusedMayStillRun: 8,
  notHappenedWhileMayRun: 0,
  unresolvedUnknown: 0,
};

describe('chaos verdict', () => {
  it('passes a clean run, unknown effects included when each had started its body', () => {
    expect(violations(verdict(clean))).toEqual([]);
  });

  it.each<[Partial<ChaosCounts>, string]>([
    [{ finalEntries: 99 }, 'final journal entries'],
    [{ decisionsWithSeveralFinals: 1 }, 'decisions with several finals'],
    [{ maxExecutionsPerCapability: 2 }, 'max executions per capability'],
    [{ maxEffectsPerKey: 2 }, 'max effects per idempotency key'],
    [{ unknownWithoutMarker: 1 }, 'unknown effects without marker'],
    [{ effectsStillStarted: 3 }, 'effects still started'],
    [{ auditIncompleteRuns: 1 }, 'audit-incomplete runs'],
    [{ dlqRecords: 1 }, 'DLQ records'],
    [{ unexpectedExits: 1 }, 'unexpected process exits'],
    [{ sent: 0, finalEntries: 0 }, 'decisions sent'],
    [{ notStartedButActed: 1 }, 'not-started effects that acted'],
    [{ pausedActedWithoutLateResult: 1 }, 'paused bodies acted, no late result'],
    [{ notHappenedWhileMayRun: 1 }, 'not happened while it may run'],
    [{ unresolvedUnknown: 2 }, 'unknown effects left unresolved'],
  ])('flags %j as a violation of "%s"', (over, name) => {
    expect(violations(verdict({ ...clean, ...over })).map((k) => k.name)).toEqual([name]);
  });

  it("counts the operator's acts, its refusals and the paused bodies' late results without judging them", () => {
    const rows = verdict({ ...clean, operatorActs: 0, operatorRefusedMayStillRun: 0, lateResults: 0 });
    expect(violations(rows)).toEqual([]);
    expect(rows.filter((k) => ['operator acts', 'operator refused: may still run', 'late results (paused dispatchers)'].includes(k.name)).map((k) => k.expected)).toEqual(['any', 'any', 'any']);
  });

  it('reports unknown effects that had a marker as a count, not a violation', () => {
    const rows = verdict({ ...clean, unknownEffects: 7, unknownWithoutMarker: 3 });
    expect(rows.find((k) => k.name === 'unknown effects (with marker)')).toMatchObject({ value: 4, ok: true });
    expect(violations(rows).map((k) => k.name)).toEqual(['unknown effects without marker']);
  });
});
