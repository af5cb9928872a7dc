import { buildSchedule, describeFault, faultKinds, PAUSE_MS } from './schedule';

describe('chaos schedule', () => {
  it('is the same for the same seed and differs for another seed', () => {
    const a = buildSchedule(7, { seconds: 90, pgRestart: true });
    expect(buildSchedule(7, { seconds: 90, pgRestart: true })).toEqual(a);
    expect(buildSchedule(8, { seconds: 90, pgRestart: true })).not.toEqual(a);
  });

  it('has every fault kind once (duplicates twice), in order, inside 10 %..80 % of the load', () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const s = buildSchedule(seed, { seconds: 60, pgRestart: true });
      expect(s.map((f) => f.kind).sort()).toEqual(faultKinds(true).sort());
      const times = s.map((f) => f.atMs);
      expect(times).toEqual([...times].sort((x, y) => x - y));
      expect(Math.min(...times)).toBeGreaterThanOrEqual(6000);
      expect(Math.max(...times)).toBeLessThanOrEqual(48000);
    }
  });

  it('leaves the PostgreSQL restart out when asked to', () => {
    expect(buildSchedule(1, { seconds: 60, pgRestart: false }).map((f) => f.kind)).not.toContain('restart-postgres');
  });

  it('names a dispatcher for a dispatcher kill and a count for duplicates', () => {
    const s = buildSchedule(5, { seconds: 90, pgRestart: false });
    expect(s.find((f) => f.kind === 'kill-dispatcher')?.target).toMatch(/^dispatcher-[12]$/);
    for (const f of s.filter((x) => x.kind.startsWith('duplicate-'))) expect(f.count).toBeGreaterThanOrEqual(5);
    for (const f of s) expect(f.pauseMs).toBeGreaterThanOrEqual(1000);
  });

  it('pauses a dispatcher and the authorizer or relay past an effect deadline, within the overrun bound', () => {
    for (const seed of [1, 2, 3, 42, 2026, 20261201]) {
      const s = buildSchedule(seed, { seconds: 60, pgRestart: false });
      const dispatcher = s.find((f) => f.kind === 'pause-dispatcher')!;
      const app = s.find((f) => f.kind === 'pause-app')!;
      expect(dispatcher.target).toMatch(/^dispatcher-[12]$/);
      expect(app.target).toMatch(/^(authorizer|relay)$/);
      for (const f of [dispatcher, app]) {
        // A demo tool's 5 s timeout + the suite's 3 s grace + a recovery pass, and under its 20 s overrun.
        expect(f.pauseMs).toBeGreaterThanOrEqual(PAUSE_MS.min);
        expect(f.pauseMs).toBeLessThanOrEqual(PAUSE_MS.max);
        expect(PAUSE_MS.min).toBeGreaterThan(5000 + 3000 + 1000);
        expect(PAUSE_MS.max).toBeLessThan(20_000);
        expect(describeFault(f)).toContain(`SIGSTOP, SIGCONT after ${(f.pauseMs / 1000).toFixed(1)} s`);
      }
    }
  });

  it('puts the operator on duty at a seeded moment of the load with a seeded interval between looks', () => {
    const on = (seed: number) => buildSchedule(seed, { seconds: 60, pgRestart: true }).find((f) => f.kind === 'operator-on-duty')!;
    expect(on(1)).toEqual(on(1));
    for (const seed of [1, 2, 3, 42]) {
      expect(on(seed).everyMs).toBeGreaterThanOrEqual(1500);
      expect(on(seed).everyMs).toBeLessThanOrEqual(3000);
      expect(describeFault(on(seed))).toContain('a look every');
    }
  });
});
