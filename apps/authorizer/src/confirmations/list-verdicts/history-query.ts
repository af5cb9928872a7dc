/** Rows per history page by default, and at most. */
export const HISTORY_PAGE = 50;
export const HISTORY_MAX_PAGE = 200;

/** How a confirmation ended, as the history filters it. */
export const OUTCOMES = ['approved', 'denied', 'expired'] as const;
export type VerdictOutcome = (typeof OUTCOMES)[number];

/** The statuses each outcome covers: an approval stays approved while it is reserved and consumed. */
export const STATUSES_OF: Record<VerdictOutcome, readonly string[]> = {
  approved: ['approved', 'reserved', 'consumed'],
  denied: ['denied'],
  expired: ['expired', 'pending'],
};

export interface HistoryQuery {
  tool: string | null;
  requester: string | null;
  outcome: VerdictOutcome | null;
  from: Date | null;
  to: Date | null;
  /** The last confirmation id of the previous page (keyset paging, newest first). */
  before: string | null;
  limit: number;
}

export type ParsedHistoryQuery = { ok: true; query: HistoryQuery } | { ok: false; message: string };

const text = (v: unknown, name: string): string | null | Error => {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string' || v.length > 200) return new Error(`${name} must be one value of at most 200 characters`);
  return v;
};

const instant = (v: unknown, name: string): Date | null | Error => {
  const t = text(v, name);
  if (t === null || t instanceof Error) return t;
  // A date (the start of that UTC day) or an RFC 3339 instant.
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(t)) return new Error(`${name} must be a date or an RFC 3339 instant`);
  const [y, m, day] = t.slice(0, 10).split('-').map(Number);
  const real = new Date(Date.UTC(y, m - 1, day));
  if (real.getUTCMonth() !== m - 1 || real.getUTCDate() !== day) return new Error(`${name} is not a real instant`);
  const d = new Date(t.length === 10 ? `${t}T00:00:00Z` : t);
  return Number.isNaN(d.getTime()) ? new Error(`${name} is not a real instant`) : d;
};

/** `?tool=&requester=&outcome=&from=&to=&before=&limit=`, each optional; anything malformed is named. */
export function parseHistoryQuery(q: Record<string, unknown>): ParsedHistoryQuery {
  const tool = text(q.tool, 'tool');
  const requester = text(q.requester, 'requester');
  const outcome = text(q.outcome, 'outcome');
  const before = text(q.before, 'before');
  const from = instant(q.from, 'from');
  const to = instant(q.to, 'to');
  for (const v of [tool, requester, outcome, before, from, to]) if (v instanceof Error) return { ok: false, message: v.message };
  if (outcome !== null && !(OUTCOMES as readonly string[]).includes(outcome as string)) return { ok: false, message: `outcome must be one of ${OUTCOMES.join(', ')}` };
  let limit = HISTORY_PAGE;
  if (q.limit !== undefined) {
    if (typeof q.limit !== 'string' || !/^[1-9][0-9]{0,3}$/.test(q.limit) || Number(q.limit) > HISTORY_MAX_PAGE) {
      return { ok: false, message: `limit must be an integer from 1 to ${HISTORY_MAX_PAGE}` };
    }
    limit = Number(q.limit);
  }
  return {
    ok: true,
    query: { tool: tool as string | null, requester: requester as string | null, outcome: outcome as VerdictOutcome | null, from: from as Date | null, to: to as Date | null, before: before as string | null, limit },
  };
}
