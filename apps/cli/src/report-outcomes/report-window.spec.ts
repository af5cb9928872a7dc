import { bucketMsFor, bucketStarts, MAX_BUCKETS, parseTimePoint, resolveWindow, type ReportWindow } from './report-window';

const now = new Date('2026-11-30T12:00:00.000Z');
const HOUR = 3_600_000;

describe('report window', () => {
  it.each([
    ['90s', { agoMs: 90_000 }],
    ['15m', { agoMs: 15 * 60_000 }],
    ['1h', { agoMs: HOUR }],
    ['7d', { agoMs: 7 * 24 * HOUR }],
    ['2w', { agoMs: 14 * 24 * HOUR }],
    ['now', { agoMs: 0 }],
    ['2026-11-30', { at: new Date('2026-11-30T00:00:00.000Z') }],
    ['2028-02-29', { at: new Date('2028-02-29T00:00:00.000Z') }],
    ['2026-11-30T10:30:00Z', { at: new Date('2026-11-30T10:30:00.000Z') }],
    ['2026-11-30T10:30+02:00', { at: new Date('2026-11-30T08:30:00.000Z') }],
  ])('reads %s', (raw, want) => expect(parseTimePoint(raw)).toEqual(want));

  it.each(['', '1', 'h', '0h', '-1h', '1.5h', '1y', 'yesterday', '2026-11-30T10:30', '2026-13-45', '2026-02-30', '2026-02-29T10:00Z', '30/11/2026'])('refuses %p', (raw) =>
    expect(parseTimePoint(raw)).toBeNull(),
  );

  it('defaults to the last 24 hours before now', () => {
    const w = resolveWindow(undefined, undefined, now) as ReportWindow;
    expect([w.since.toISOString(), w.until.toISOString(), w.bucketMs]).toEqual(['2026-11-29T12:00:00.000Z', now.toISOString(), HOUR]);
  });

  it('counts relative edges back from the given now, and takes instants as they are', () => {
    const w = resolveWindow({ agoMs: 2 * HOUR }, { at: new Date('2026-11-30T11:00:00Z') }, now) as ReportWindow;
    expect([w.since.toISOString(), w.until.toISOString()]).toEqual(['2026-11-30T10:00:00.000Z', '2026-11-30T11:00:00.000Z']);
  });

  it('names an empty or inverted window instead of reporting on it', () => {
    expect(resolveWindow({ agoMs: HOUR }, { agoMs: HOUR }, now)).toEqual({ problem: expect.stringContaining('must be before --until') });
    expect(resolveWindow({ agoMs: HOUR }, { agoMs: 2 * HOUR }, now)).toHaveProperty('problem');
  });

  it('picks the smallest round bucket that keeps the chart within the bar limit', () => {
    expect(bucketMsFor(10 * 60_000)).toBe(60_000);
    expect(bucketMsFor(HOUR)).toBe(5 * 60_000);
    expect(bucketMsFor(24 * HOUR)).toBe(HOUR);
    expect(bucketMsFor(30 * 24 * HOUR)).toBe(24 * HOUR);
    for (const span of [1000, 47 * 60_000, 13 * HOUR, 365 * 24 * HOUR, 3000 * 24 * HOUR]) {
      const w = { since: new Date(now.getTime() - span + 7), until: now, bucketMs: bucketMsFor(span) };
      expect(bucketStarts(w).length).toBeLessThanOrEqual(MAX_BUCKETS);
    }
  });

  it('aligns buckets to UTC multiples of their size and covers the whole window', () => {
    const w = { since: new Date('2026-11-30T10:07:00Z'), until: new Date('2026-11-30T11:00:00Z'), bucketMs: 15 * 60_000 };
    expect(bucketStarts(w).map((ms) => new Date(ms).toISOString().slice(11, 16))).toEqual(['10:00', '10:15', '10:30', '10:45']);
  });
});
