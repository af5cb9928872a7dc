import { Injectable } from '@nestjs/common';
import { Database } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { toPendingConfirmation, type PendingConfirmation, type PendingRow } from './pending-confirmation';

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
             c.tool, c.payload_sha256 AS "payloadSha256", c.requested_at AS "requestedAt", c.expires_at AS "expiresAt", di.body
      FROM confirmations c JOIN decision_inbox di ON di.decision_id = c.decision_id AND di.tenant = c.tenant
      WHERE c.tenant = ${tenant} AND c.status = 'pending' AND c.expires_at > now()
        AND (${after}::text IS NULL OR (c.requested_at, c.confirmation_id) >
             (SELECT a.requested_at, a.confirmation_id FROM confirmations a WHERE a.confirmation_id = ${after}::text))
      ORDER BY c.requested_at, c.confirmation_id
      LIMIT ${limit}`;
    return rows.map((r) => toPendingConfirmation(r, this.catalog.get(r.tool)));
  }
}
