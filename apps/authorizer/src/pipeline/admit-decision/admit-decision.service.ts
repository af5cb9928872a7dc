import { Injectable } from '@nestjs/common';
import { buildEffectContext, diffEffectContext } from '@arvis/effect-context';
import type { Authorized } from '../../policy/authorize-decision/authorization.types';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';

export interface AdmissionRefusal {
  authorized: Authorized;
  reasonCode: 'identity_invalid' | 'authenticated_principal_required' | 'effect_context_mismatch';
  detail: string;
}

/**
 * Admission (tool.execute), inside the transaction that would create the intent: the verified
 * claims kept for the decision (never the token, ADR 0035) are re-checked against the issuer's
 * current rules, the database's clock and the revoked-sessions table, and the effect context is
 * rebuilt from them with the same builder and compared field by field. This is what catches a
 * token that expired, or a session revoked, while a decision waited for approval or a retry.
 */
@Injectable()
export class AdmitDecisionService {
  constructor(private readonly identity: VerifyIdentityService) {}

  /**
   * `at`: the slice transaction's `now()` and the revoked session hashes among the slice's, both
   * read by the slice's one read statement (decision-pipeline/read-slice.ts).
   */
  async admit(candidates: Authorized[], at: { now: Date; revokedSessions: ReadonlySet<string> }): Promise<{ admitted: Authorized[]; refused: AdmissionRefusal[] }> {
    if (candidates.length === 0) return { admitted: [], refused: [] };
    const { now, revokedSessions: revoked } = at;
    const admitted: Authorized[] = [];
    const refused: AdmissionRefusal[] = [];
    for (const a of candidates) {
      const again = await this.identity.recheck(a.stored, now, a.resumed);
      if (!again.ok) {
        refused.push({ authorized: a, reasonCode: again.reasonCode, detail: `at admission: ${again.detail}` });
        continue;
      }
      const rebuilt = buildEffectContext(again.identity, { processId: a.decision.processId, runId: a.decision.runId });
      if (rebuilt.sessionIdHash && revoked.has(rebuilt.sessionIdHash)) {
        refused.push({ authorized: a, reasonCode: 'identity_invalid', detail: 'at admission: the session was revoked' });
        continue;
      }
      const differs = diffEffectContext(a.effectContext, rebuilt);
      if (differs.length > 0) {
        refused.push({ authorized: a, reasonCode: 'effect_context_mismatch', detail: `effect context differs in ${differs.join(', ')}` });
        continue;
      }
      admitted.push(a);
    }
    return { admitted, refused };
  }
}
