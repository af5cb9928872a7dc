import { buildSchedule, faultKinds } from './schedule';

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
});
