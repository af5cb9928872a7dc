import { Inject, Injectable } from '@nestjs/common';
import { clipText, type ReasonCode } from '@arvis/contracts';
import { buildEffectContext, deriveIdempotencyKey, freezePayload, type VerifiedIdentity } from '@arvis/effect-context';
import { deepFreeze } from '@arvis/crypto';
import { ToolCatalog, type ToolSpec } from '@arvis/tool-catalog';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { tenantOf } from '../../pipeline/decision-pipeline/pipeline.types';
import type { SliceNeeds, SliceReads } from '../../pipeline/decision-pipeline/read-slice';
import type { StoredIdentity } from '../verify-identity/stored-identity';
import { VerifyIdentityService, type IdentityResult } from '../verify-identity/verify-identity.service';
import {
  UNAUTHENTICATED,
  UNKNOWN_TENANT,
  type Authorization,
  type Decision,
  type PolicyData,
} from './authorization.types';

/**
 * The policy, in the order of docs/architecture.md step 3 (ADR 0014): identity, frozen payload, unknown tool, input schema,
 * confirmation, risk, consent gate, egress gate, confirmation required. Every check after the
 * freeze sees only the frozen payload. Gate data comes from the host's tables, never the message.
 */
/** One decision for policy, with the identity it was verified with at intake, or the claims kept since. */
export interface AuthorizeItem {
  decision: Decision;
  identity?: IdentityResult;
  stored?: StoredIdentity;
  resumed: boolean;
}

/** The gate data as policy looks it up. */
function policyData(reads: SliceReads): PolicyData {
  return {
    consentTenants: new Set(reads.consent.map((c) => c.tenant)),
    consentGrants: new Set(reads.consent.map((c) => `${c.tenant}|${c.principal}|${c.consentKey}`)),
    egressTenants: new Set(reads.egress.map((e) => e.tenant)),
    egressAllowed: new Set(reads.egress.map((e) => `${e.tenant}|${e.provider}`)),
    confirmations: new Map(reads.confirmations.map((c) => [c.confirmationId, c])),
    databaseNow: reads.now,
  };
}

@Injectable()
export class AuthorizeDecisionService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly identity: VerifyIdentityService,
    private readonly catalog: ToolCatalog,
  ) {}

  /**
   * What policy must read for these decisions: gate data only for the tenants whose tool declares
   * that gate, and only the confirmations presented. Read in the slice's transaction (ADR 0049).
   */
  needsOf(items: readonly AuthorizeItem[]): Pick<SliceNeeds, 'consentTenants' | 'egressTenants' | 'confirmationIds'> {
    const consent = new Set<string>();
    const egress = new Set<string>();
    const confirmations = new Set<string>();
    for (const x of items) {
      const tenant = x.identity?.ok ? x.identity.identity.tenant : x.stored?.tenant;
      const manifest = this.catalog.get(x.decision.tool)?.manifest;
      if (tenant !== undefined && manifest?.requiredConsent) consent.add(tenant);
      if (tenant !== undefined && manifest?.provider && manifest.dataEgress) egress.add(tenant);
      if (x.decision.confirmationId) confirmations.add(x.decision.confirmationId);
    }
    return { consentTenants: [...consent], egressTenants: [...egress], confirmationIds: [...confirmations] };
  }

  /**
   * `identity` is the token as verified at intake (a message from the topic); a decision the
   * system made (a retry, a resumed confirmation) brings the claims stored then instead, and they
   * are re-checked here (ADR 0035). Either way expiry is judged by the database's clock, like
   * every other time in the record: `reads.now`, the slice transaction's.
   */
  async authorizeAll(items: AuthorizeItem[], reads: SliceReads): Promise<Authorization[]> {
    if (items.length === 0) return [];
    const identities = await Promise.all(items.map((x) => this.identityOf(x, reads.now)));
    const data = policyData(reads);
    return items.map((x, i) => this.evaluate(x.decision, identities[i], data, x.resumed, tenantOf(x)));
  }

  private async identityOf(x: AuthorizeItem, now: Date): Promise<IdentityResult> {
    if (x.identity) return this.unexpired(x.identity, now);
    if (x.stored) return this.identity.recheck(x.stored, now, x.resumed);
    return { ok: false, reasonCode: 'identity_invalid', detail: 'no verified identity was kept for this decision (received before the upgrade, token expired)' };
  }

  /** Expiry by database time, with the same clock skew allowance as the token check. */
  private unexpired(result: IdentityResult, databaseNow: Date): IdentityResult {
    if (!result.ok) return result;
    const skewMs = this.config.identity.clockSkewS * 1000;
    if (result.identity.expiresAt.getTime() + skewMs <= databaseNow.getTime()) {
      return { ok: false, reasonCode: 'identity_invalid', detail: 'token expired (by database time)' };
    }
    return result;
  }

  /** `scope`: the tenant the decision's ids are scoped by (ADR 0061), recorded on a refusal without a current identity. */
  private evaluate(decision: Decision, verified: IdentityResult, data: PolicyData, resumed: boolean, scope: string): Authorization {
    if (!verified.ok) return this.refuse(decision, verified.reasonCode, verified.detail, undefined, scope);
    const { identity: who, stored } = verified;

    const frozen = freezePayload(decision.payload);
    if (!frozen.ok) return this.refuse(decision, 'invalid_effect_payload', frozen.detail, who);

    const spec = this.catalog.get(decision.tool);
    if (!spec) return this.refuse(decision, 'unknown_tool', `tool ${decision.tool} is not in the catalog`, who);

    const input = spec.input.safeParse(frozen.frozen.value);
    if (!input.success) {
      const detail = input.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
      // By code point: a cut by UTF-16 units can leave half an emoji, which cannot be journaled.
      return this.refuse(decision, 'input_schema_violation', clipText(detail, 500), who);
    }

    const confirmed = this.confirmedFor(decision, spec, frozen.frozen.sha256, who, data);

    if (decision.riskScore > spec.maxRisk) {
      return this.refuse(decision, 'risk_exceeded', `risk ${decision.riskScore} exceeds ${spec.maxRisk} for ${spec.name}`, who);
    }
    const consent = this.consentGate(spec, who, data);
    if (consent) return this.refuse(decision, consent.code, consent.detail, who);
    const egress = this.egressGate(spec, who, data);
    if (egress) return this.refuse(decision, egress.code, egress.detail, who);

    if (spec.requiresConfirmation && !confirmed) {
      if (decision.confirmationId) {
        return this.refuse(decision, 'confirmation_required', `confirmation ${decision.confirmationId} is not approved for this action`, who);
      }
      return { ok: false, parked: true, decision, identity: who, stored, frozen: frozen.frozen, spec };
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
      stored,
      resumed,
      frozen: frozen.frozen,
      spec,
      effectContext,
      idempotencyKey,
      ...(confirmed ? { confirmationId: decision.confirmationId } : {}),
      snapshot: this.snapshot(decision, true, 'allowed', who, confirmed),
    };
  }

  /**
   * A confirmation can only be one already approved for exactly this action; a mismatched
   * attempt is ignored here and never changes the confirmation.
   */
  private confirmedFor(decision: Decision, spec: ToolSpec, payloadSha256: string, who: VerifiedIdentity, data: PolicyData): boolean {
    const confirmation = decision.confirmationId ? data.confirmations.get(decision.confirmationId) : undefined;
    return (
      !!confirmation &&
      confirmation.status === 'approved' &&
      confirmation.tool === spec.name &&
      confirmation.payloadSha256 === payloadSha256 &&
      confirmation.principal === who.principal &&
      // (issuer, subject): rows parked before the issuer was kept compare the subject alone.
      (confirmation.issuer === null || confirmation.issuer === who.issuer) &&
      confirmation.tenant === who.tenant &&
      !!confirmation.grantExpiresAt &&
      confirmation.grantExpiresAt > data.databaseNow
    );
  }

  /** In production a missing gate denies; elsewhere a tenant without data is not gated. */
  private consentGate(spec: ToolSpec, who: VerifiedIdentity, data: PolicyData): { code: ReasonCode; detail: string } | null {
    const key = spec.manifest.requiredConsent;
    if (!key) return null;
    if (!data.consentTenants.has(who.tenant)) {
      return this.config.profile === 'production'
        ? { code: 'consent_gate_missing', detail: `tenant ${who.tenant} has no consent data` }
        : null;
    }
    return data.consentGrants.has(`${who.tenant}|${who.principal}|${key}`)
      ? null
      : { code: 'consent_required', detail: `${who.principal} has not granted consent "${key}"` };
  }

  private egressGate(spec: ToolSpec, who: VerifiedIdentity, data: PolicyData): { code: ReasonCode; detail: string } | null {
    const provider = spec.manifest.provider;
    if (!provider || !spec.manifest.dataEgress) return null;
    if (!data.egressTenants.has(who.tenant)) {
      return this.config.profile === 'production'
        ? { code: 'egress_gate_missing', detail: `tenant ${who.tenant} has no egress policy` }
        : null;
    }
    return data.egressAllowed.has(`${who.tenant}|${provider}`)
      ? null
      : { code: 'egress_denied', detail: `tenant ${who.tenant} does not allow egress to ${provider}` };
  }

  private refuse(decision: Decision, reasonCode: ReasonCode, detail: string, who?: VerifiedIdentity, scope?: string): Authorization {
    return {
      ok: false,
      decision,
      reasonCode,
      detail,
      principal: who?.principal ?? UNAUTHENTICATED,
      // The final entry's tenant is the one the inbox row is keyed by, so one final per tenant's decision holds.
      tenant: who?.tenant ?? scope ?? UNKNOWN_TENANT,
      snapshot: this.snapshot(decision, false, reasonCode, who, false),
    };
  }

  private snapshot(decision: Decision, allowed: boolean, reason: string, who: VerifiedIdentity | undefined, confirmed: boolean) {
    return deepFreeze({
      authorizationVersion: 1,
      tool: decision.tool,
      allowed,
      reason,
      principal: who?.principal ?? null,
      tenant: who?.tenant ?? null,
      riskScore: decision.riskScore,
      confirmed,
      confirmationId: confirmed ? (decision.confirmationId ?? null) : null,
      // The tool's pool's (ADR 0080), as its intent carries; the whole catalog's for a tool it lacks.
      catalogFingerprint: this.catalog.fingerprintOf(decision.tool) ?? this.catalog.fingerprint,
      authentication: who
        ? { source: who.issuer, strength: who.authenticationStrength, serviceId: who.serviceId }
        : null,
    });
  }
}
