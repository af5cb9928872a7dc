import { Inject, Injectable } from '@nestjs/common';
import { ConfirmationStore } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import type { Parked } from '../../policy/authorize-decision/authorization.types';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';

/** One pending confirmation per parked decision, bound to tool, payload, principal and tenant (ADR 0013). */
@Injectable()
export class ParkDecisionStep {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly confirmations: ConfirmationStore,
  ) {}

  async park(tx: Tx, parked: Parked[]): Promise<void> {
    const requests = parked.map((p) => ({
      decisionId: p.decision.decisionId,
      tenant: p.identity.tenant,
      principal: p.identity.principal,
      issuer: p.identity.issuer,
      person: p.identity.person,
      tool: p.spec.name,
      payloadSha256: p.frozen.sha256,
    }));
    await this.confirmations.park(tx, requests, this.config.confirmations.requestTtlMs);
  }
}
