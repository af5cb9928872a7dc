import { Injectable } from '@nestjs/common';
import { Database } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { EARLIER_SHOWN, toPendingConfirmation, type EarlierDecision, type PendingConfirmation, type PendingRow } from './pending-confirmation';

/**
 * The approver console's list: a tenant's pending, unexpired confirmations, oldest first, one page
 * per call, in one SQL statement (the parked decision's body comes from the inbox in the same
 * read). Keyset paging on (requested_at, confirmation_id), so a page never repeats or skips a row.
 */
@Injectable()
export class ListConfirmationsService {
  constructor(
    private readonly db: Database,
    private readonly catalog: ToolCatalog,
  ) {}

  async pending(tenant: string, limit: number, after: string | null): Promise<PendingConfirmation[]> {
    const rows = await this.db.$queryRaw<PendingRow[]>`
      SELECT c.confirmation_id AS "confirmationId", c.decision_id AS "decisionId", di.run_id AS "runId", c.principal, c.issuer, di.identity_claims->>'serviceId' AS "serviceId",
             c.tool, c.payload_sha256 AS "payloadSha256", c.requested_at AS "requestedAt", c.expires_at AS "expiresAt", di.body, di.received_at AS "receivedAt"
      FROM confirmations c JOIN decision_inbox di ON di.decision_id = c.decision_id AND di.tenant = c.tenant
      WHERE c.tenant = ${tenant} AND c.status = 'pending' AND c.expires_at > now()
        AND (${after}::text IS NULL OR (c.requested_at, c.confirmation_id) >
             (SELECT a.requested_at, a.confirmation_id FROM confirmations a WHERE a.confirmation_id = ${after}::text))
      ORDER BY c.requested_at, c.confirmation_id
      LIMIT ${limit}`;
    const runs = await this.runDecisions(tenant, [...new Set(rows.map((r) => r.runId))]);
    return rows.map((r) => toPendingConfirmation(r, this.catalog.get(r.tool), runs.get(r.runId)));
  }

  /** The last decisions of each of these runs (by the run_id index), oldest first, with their final entries. */
  private async runDecisions(tenant: string, runIds: string[]): Promise<Map<string, EarlierDecision[]>> {
    const byRun = new Map<string, EarlierDecision[]>();
    if (runIds.length === 0) return byRun;
    const rows = await this.db.$queryRaw<(Omit<EarlierDecision, 'receivedAt'> & { runId: string; receivedAt: Date })[]>`
      SELECT r.run_id AS "runId", d.* FROM unnest(${runIds}::text[]) AS r(run_id) CROSS JOIN LATERAL (
        SELECT di.decision_id AS "decisionId", di.tool, di.received_at AS "receivedAt",
               j.kind, j.effect_boundary AS "effectBoundary", j.reason_code AS "reasonCode"
        FROM decision_inbox di LEFT JOIN journal j ON j.final_decision_id = di.decision_id AND j.tenant = di.tenant
        WHERE di.run_id = r.run_id AND di.tenant = ${tenant}
        ORDER BY di.received_at DESC, di.decision_id DESC
        LIMIT ${EARLIER_SHOWN * 4}) d
      ORDER BY r.run_id, d."receivedAt", d."decisionId"`;
    for (const r of rows) {
      const list = byRun.get(r.runId) ?? [];
      list.push({ decisionId: r.decisionId, tool: r.tool, receivedAt: r.receivedAt.toISOString(), kind: r.kind, effectBoundary: r.effectBoundary, reasonCode: r.reasonCode });
      byRun.set(r.runId, list);
    }
    return byRun;
  }
}
