import { Injectable } from '@nestjs/common';
import { Database } from '@arvis/persistence';
import { STATUSES_OF, type HistoryQuery } from './history-query';

/** One confirmation in the console's history: who asked, who decided, how it ended, and the comment. */
export interface VerdictRow {
  confirmationId: string;
  decisionId: string;
  tool: string;
  requester: { principal: string; issuer: string | null };
  /** approved (also once reserved or consumed), denied, or expired (also a pending one past its expiry). */
  outcome: 'approved' | 'denied' | 'expired';
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: { subject: string; issuer: string | null } | null;
  /** The approver's comment, as journaled with the verdict (approver.comment). */
  comment: string | null;
}

export interface VerdictPage {
  items: VerdictRow[];
  /** Pass as `before` for the next (older) page; null on the last one. */
  next: string | null;
}

interface Row {
  confirmationId: string;
  decisionId: string;
  tool: string;
  principal: string;
  issuer: string | null;
  status: string;
  requestedAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  decidedByIssuer: string | null;
  comment: string | null;
}

const outcomeOf = (status: string): VerdictRow['outcome'] =>
  STATUSES_OF.approved.includes(status) ? 'approved' : status === 'denied' ? 'denied' : 'expired';

/**
 * The console's history (ADR 0069): a tenant's confirmations that are no longer waiting, newest
 * first, filtered by tool, requester, outcome and time requested, in pages keyed on
 * (requested_at, confirmation_id) through the tenant's index, so paging goes on past any count.
 * One SQL statement per page; the comment is read from the verdict's journal entry.
 */
@Injectable()
export class ListVerdictsService {
  constructor(private readonly db: Database) {}

  async page(tenant: string, q: HistoryQuery): Promise<VerdictPage> {
    const statuses = q.outcome ? [...STATUSES_OF[q.outcome]] : null;
    const rows = await this.db.$queryRaw<Row[]>`
      SELECT c.confirmation_id AS "confirmationId", c.decision_id AS "decisionId", c.tool, c.principal, c.issuer, c.status,
             c.requested_at AS "requestedAt", c.decided_at AS "decidedAt", c.decided_by AS "decidedBy", c.decided_by_issuer AS "decidedByIssuer",
             (SELECT j.entry::jsonb #>> '{approver,comment}' FROM journal j
               WHERE j.decision_id = c.decision_id AND j.tenant = c.tenant AND j.kind IN ('confirmation_approved', 'confirmation_denied') LIMIT 1) AS comment
      FROM confirmations c
      WHERE c.tenant = ${tenant}
        AND NOT (c.status = 'pending' AND c.expires_at > now())
        AND (${q.tool}::text IS NULL OR c.tool = ${q.tool}::text)
        AND (${q.requester}::text IS NULL OR c.principal = ${q.requester}::text)
        AND (${statuses}::text[] IS NULL OR c.status = ANY(${statuses}::text[]))
        AND (${q.outcome}::text IS DISTINCT FROM 'expired' OR c.status = 'expired' OR c.expires_at <= now())
        AND (${q.from}::timestamptz IS NULL OR c.requested_at >= ${q.from}::timestamptz)
        AND (${q.to}::timestamptz IS NULL OR c.requested_at < ${q.to}::timestamptz)
        AND (${q.before}::text IS NULL OR (c.requested_at, c.confirmation_id) <
             (SELECT b.requested_at, b.confirmation_id FROM confirmations b WHERE b.confirmation_id = ${q.before}::text AND b.tenant = ${tenant}))
      ORDER BY c.requested_at DESC, c.confirmation_id DESC
      LIMIT ${q.limit + 1}`;
    const items = rows.slice(0, q.limit).map(
      (r): VerdictRow => ({
        confirmationId: r.confirmationId,
        decisionId: r.decisionId,
        tool: r.tool,
        requester: { principal: r.principal, issuer: r.issuer },
        outcome: outcomeOf(r.status),
        requestedAt: r.requestedAt.toISOString(),
        decidedAt: r.decidedAt?.toISOString() ?? null,
        decidedBy: r.decidedBy ? { subject: r.decidedBy, issuer: r.decidedByIssuer } : null,
        comment: r.comment,
      }),
    );
    return { items, next: rows.length > q.limit ? items[items.length - 1].confirmationId : null };
  }
}
