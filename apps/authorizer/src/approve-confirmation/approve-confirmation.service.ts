import { Inject, Injectable } from '@nestjs/common';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { ConfirmationStore } from '@arvis/lifecycle';
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
    private readonly confirmations: ConfirmationStore,
  ) {}

  pending(tenant: string) {
    return this.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT confirmation_id AS "confirmationId", decision_id AS "decisionId", principal, tool,
             payload_sha256 AS "payloadSha256", requested_at AS "requestedAt", expires_at AS "expiresAt"
      FROM confirmations WHERE tenant = ${tenant} AND status = 'pending' AND expires_at > now()
      ORDER BY requested_at`;
  }

  async decide(id: string, approver: VerifiedIdentity, to: 'approved' | 'denied'): Promise<DecideOutcome> {
    const changed =
      to === 'approved'
        ? await this.confirmations.approve(id, approver, this.config.confirmations.grantTtlMs)
        : await this.confirmations.deny(id, approver);
    if (changed) return 'ok';
    // Say why, from the row as it is now.
    const row = await this.prisma.confirmation.findUnique({ where: { confirmationId: id } });
    if (!row) return 'not_found';
    if (row.tenant !== approver.tenant) return 'other_tenant';
    if (row.principal === approver.principal) return 'own_request';
    return 'not_pending';
  }
}
