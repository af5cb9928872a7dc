/** A window edge as typed: an instant, or a span back from the database's now (`1h` = an hour ago). */
export type TimePoint = { at: Date } | { agoMs: number };

export interface ReportWindow {
  since: Date;
  until: Date;
  /** Width of one bar of the outcomes-over-time chart. */
  bucketMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { s: 1000, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY };

export const DEFAULT_SINCE: TimePoint = { agoMs: DAY };
/** At most this many bars in the outcomes-over-time chart. */
export const MAX_BUCKETS = 48;
const BUCKET_SIZES = [MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY];

// A time needs its zone: a bare "10:00" would be read in the analyst's local zone, not UTC.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** `now`, `90s`, `15m`, `1h`, `7d`, `2w`, or an ISO 8601 date or date-time with zone; null otherwise. */
export function parseTimePoint(raw: string): TimePoint | null {
  const text = raw.trim();
  if (text === 'now') return { agoMs: 0 };
  const relative = /^([1-9][0-9]{0,8})([smhdw])$/.exec(text);
  if (relative) return { agoMs: Number(relative[1]) * UNIT_MS[relative[2]] };
  if (!ISO.test(text) || !isCalendarDate(text.slice(0, 10))) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : { at: new Date(at) };
}

// Date.parse rolls 2026-02-30 over to March 2; a typo should be refused, not moved.
function isCalendarDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

const resolve = (p: TimePoint, now: Date) => ('at' in p ? p.at : new Date(now.getTime() - p.agoMs));

/** The smallest bucket from a round list that keeps the chart within MAX_BUCKETS bars. */
export function bucketMsFor(spanMs: number): number {
  const fits = BUCKET_SIZES.find((size) => Math.ceil(spanMs / size) + 1 <= MAX_BUCKETS);
  return fits ?? Math.ceil(spanMs / (MAX_BUCKETS - 1) / DAY) * DAY;
}

/**
 * The window [since, until) against `now` (the database's clock, the one recorded_at is written
 * with). Null with a reason when it is empty or inverted.
 */
export function resolveWindow(since: TimePoint | undefined, until: TimePoint | undefined, now: Date): ReportWindow | { problem: string } {
  const from = resolve(since ?? DEFAULT_SINCE, now);
  const to = until ? resolve(until, now) : now;
  if (from.getTime() >= to.getTime()) return { problem: `--since (${from.toISOString()}) must be before --until (${to.toISOString()})` };
  return { since: from, until: to, bucketMs: bucketMsFor(to.getTime() - from.getTime()) };
}

/** Bucket starts (epoch-aligned, UTC) covering [since, until), in order. */
export function bucketStarts(w: ReportWindow): number[] {
  const first = Math.floor(w.since.getTime() / w.bucketMs);
  const last = Math.floor((w.until.getTime() - 1) / w.bucketMs);
  return Array.from({ length: last - first + 1 }, (_, i) => (first + i) * w.bucketMs);
}
