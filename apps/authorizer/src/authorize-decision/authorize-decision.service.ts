import { Injectable } from '@nestjs/common';
import type { ActionDecision, ReasonCode } from '@arvis/contracts';
import {
  buildEffectContext,
  deepFreeze,
  deriveIdempotencyKey,
  freezePayload,
  type VerifiedIdentity,
} from '@arvis/effect-context';
import { ToolCatalog } from '@arvis/tool-catalog';
import { VerifyIdentityService } from '../verify-identity/verify-identity.service';
import { UNAUTHENTICATED, UNKNOWN_TENANT, type Authorization } from './authorization.types';

/**
 * The policy, in DESIGN.md step 2's order: identity, frozen payload, unknown tool, input
 * schema, risk. Each check sees only the frozen payload, never the message's own object.
 */
@Injectable()
export class AuthorizeDecisionService {
  constructor(
    private readonly identity: VerifyIdentityService,
    private readonly catalog: ToolCatalog,
  ) {}

  async authorize(decision: ActionDecision): Promise<Authorization> {
    const verified = await this.identity.verify(decision.identity);
    if (!verified.ok) return this.refuse(decision, verified.reasonCode, verified.detail);
    const who = verified.identity;

    const frozen = freezePayload(decision.payload);
    if (!frozen.ok) return this.refuse(decision, 'invalid_effect_payload', frozen.detail, who);

    const spec = this.catalog.get(decision.tool);
    if (!spec) return this.refuse(decision, 'unknown_tool', `tool ${decision.tool} is not in the catalog`, who);

    const input = spec.input.safeParse(frozen.frozen.value);
    if (!input.success) {
      const detail = input.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
      return this.refuse(decision, 'input_schema_violation', detail.slice(0, 500), who);
    }
    if (decision.riskScore > spec.maxRisk) {
      return this.refuse(decision, 'risk_exceeded', `risk ${decision.riskScore} exceeds ${spec.maxRisk} for ${spec.name}`, who);
    }

    const effectContext = buildEffectContext(who, { processId: decision.processId, runId: decision.runId });
    const idempotencyKey = deriveIdempotencyKey({
      tool: spec.name,
      payloadSha256: frozen.frozen.sha256,
      principal: who.principal,
      tenant: who.tenant,
      serviceId: who.serviceId,
      processId: decision.processId,
    });
    return {
      ok: true,
      decision,
      identity: who,
      frozen: frozen.frozen,
      spec,
      effectContext,
      idempotencyKey,
      snapshot: this.snapshot(decision, true, 'allowed', who),
    };
  }

  private refuse(decision: ActionDecision, reasonCode: ReasonCode, detail: string, who?: VerifiedIdentity): Authorization {
    return {
      ok: false,
      decision,
      reasonCode,
      detail,
      principal: who?.principal ?? UNAUTHENTICATED,
      tenant: who?.tenant ?? UNKNOWN_TENANT,
      snapshot: this.snapshot(decision, false, reasonCode, who),
    };
  }

  private snapshot(decision: ActionDecision, allowed: boolean, reason: string, who?: VerifiedIdentity) {
    return deepFreeze({
      authorizationVersion: 1,
      tool: decision.tool,
      allowed,
      reason,
      principal: who?.principal ?? null,
      tenant: who?.tenant ?? null,
      riskScore: decision.riskScore,
      catalogFingerprint: this.catalog.fingerprint,
      authentication: who
        ? { source: who.issuer, strength: who.authenticationStrength, serviceId: who.serviceId }
        : null,
    });
  }
}
