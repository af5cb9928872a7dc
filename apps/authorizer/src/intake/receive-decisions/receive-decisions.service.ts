import { Inject, Injectable } from '@nestjs/common';
import { ActionDecisionSchema, parseInbound, type ActionDecision, type ReasonCode } from '@arvis/contracts';
import { canonicalJson, canonicalJsonWithMember, sha256Hex } from '@arvis/crypto';
import type { InboundMessage, KafkaBatch } from '@arvis/kafka';
import type { OutboxRow } from '@arvis/outbox';
import { AuthorizerFaultPoints } from '../../fault-points/fault-points';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { scopedKey, tenantOf, type Candidate, type PipelineInput } from '../../pipeline/decision-pipeline/pipeline.types';
import { RecordInboxStep } from '../../pipeline/record-inbox/record-inbox.step';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';
import { decisionDeadLetter } from './decision-dead-letter';

/**
 * The consumer's first step: one slice of arvis.decisions read into candidates for the decision
 * pipeline, and dead letters for what cannot be one (unreadable, or an identity that does not
 * verify: attributable to no one, ADR 0002/0003). Identity is checked before canonicalisation,
 * hashing or any database work; the token itself goes no further than this step (ADR 0035).
 */
@Injectable()
export class ReceiveDecisionsService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly identity: VerifyIdentityService,
    private readonly inbox: RecordInboxStep,
    private readonly faults: AuthorizerFaultPoints,
  ) {}

  async read(batch: KafkaBatch): Promise<PipelineInput> {
    const receivedAt = new Date();
    const deadLetters: OutboxRow[] = [];
    const parsed: { message: InboundMessage; decision: ActionDecision }[] = [];
    for (const message of batch.messages) {
      const result = parseInbound(ActionDecisionSchema, message.value, { maxBytes: this.config.maxDecisionBytes });
      if (result.ok) this.faults.beforeHandling(result.value.decisionId);
      if (result.ok) parsed.push({ message, decision: result.value as ActionDecision });
      else deadLetters.push(this.deadLetter(message, { reasonCode: result.reasonCode, detail: result.detail }, receivedAt));
    }
    const identities = await Promise.all(parsed.map((p) => this.identity.verify(p.decision.identity)));
    const candidates: Candidate[] = [];
    const seen = new Map<string, string>();
    parsed.forEach(({ message, decision }, i) => {
      const identity = identities[i];
      if (!identity.ok && identity.reasonCode === 'identity_invalid') {
        deadLetters.push(this.deadLetter(message, { reasonCode: 'identity_invalid', detail: identity.detail, decisionId: decision.decisionId }, receivedAt));
        return;
      }
      // The token stops here (ADR 0035): what goes on is the decision without it, the verified
      // claims and the token's SHA-256.
      const { identity: token, ...withoutToken } = decision;
      let body: string;
      let bodySha256: string;
      try {
        // One canonicalisation of the decision (ADR 0049): the inbox stores it without the token,
        // and the body hash is of the decision as received, the token spliced back in.
        body = canonicalJson(withoutToken);
        bodySha256 = sha256Hex(canonicalJsonWithMember(body, 'identity', token));
      } catch (e) {
        // Valid JSON that RFC 8785 cannot represent (a lone surrogate): unreadable, not a fault.
        deadLetters.push(this.deadLetter(message, { reasonCode: 'malformed_message', detail: `not representable as canonical JSON: ${(e as Error).message}` }, receivedAt));
        return;
      }
      // The verified claims already carry the token's SHA-256: it is not hashed twice.
      const identitySha256 = identity.ok ? identity.stored.tokenSha256 : sha256Hex(token);
      const candidate: Candidate = { origin: { kind: 'message', message, receivedAt }, decision: withoutToken, body, bodySha256, identity, identitySha256 };
      // The same decision twice in one slice: the second is a redelivery or a conflict.
      // Ids are the tenant's own (ADR 0061): another tenant's decision with this id is another decision.
      const key = scopedKey(tenantOf(candidate), decision.decisionId);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        if (earlier !== bodySha256) deadLetters.push(this.inbox.conflict(candidate, { kind: 'message', message, receivedAt }));
        return;
      }
      seen.set(key, bodySha256);
      candidates.push(candidate);
    });
    return { candidates, deadLetters };
  }

  private deadLetter(message: InboundMessage, reason: { reasonCode: ReasonCode; detail: string; decisionId?: string }, receivedAt: Date): OutboxRow {
    return decisionDeadLetter(message, this.config.topics.decisionsDlq, reason, receivedAt, this.config.dlq.maxRawBytes);
  }
}
