import { Inject, Injectable } from '@nestjs/common';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { PrismaService } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

export type DecideOutcome = 'ok' | 'not_found' | 'other_tenant' | 'own_request' | 'not_pending';

/**
 * An approver's decision on a pending confirmation: one conditional UPDATE (pending -> approved
 * or denied, same tenant, not the requester, not expired on database time). The HTTP handler
 * only records it; the resume worker carries the parked decision on.
 */
@Injectable()
export class ApproveConfirmationService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly prisma: PrismaService,
  ) {}

  pending(tenant: string) {
    return this.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT confirmation_id AS "confirmationId", decision_id AS "decisionId", principal, tool,
             payload_sha256 AS "payloadSha256", requested_at AS "requestedAt", expires_at AS "expiresAt"
      FROM confirmations WHERE tenant = ${tenant} AND status = 'pending' AND expires_at > now()
      ORDER BY requested_at`;
  }

  async decide(id: string, approver: VerifiedIdentity, to: 'approved' | 'denied'): Promise<DecideOutcome> {
    const grantMs = this.config.confirmations.grantTtlMs;
    const changed = await this.prisma.$executeRaw`
      UPDATE confirmations SET status = ${to}, decided_at = now(), decided_by = ${approver.principal},
             grant_expires_at = CASE WHEN ${to} = 'approved' THEN now() + make_interval(secs => ${grantMs}::float8 / 1000) END
      WHERE confirmation_id = ${id} AND status = 'pending' AND expires_at > now()
        AND tenant = ${approver.tenant} AND principal <> ${approver.principal}`;
    if (changed === 1) return 'ok';
    // Say why, from the row as it is now.
    const row = await this.prisma.confirmation.findUnique({ where: { confirmationId: id } });
    if (!row) return 'not_found';
    if (row.tenant !== approver.tenant) return 'other_tenant';
    if (row.principal === approver.principal) return 'own_request';
    return 'not_pending';
  }
}
