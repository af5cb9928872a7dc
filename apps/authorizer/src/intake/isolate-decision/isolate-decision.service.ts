import { Inject, Injectable, Logger } from '@nestjs/common';
import { ActionDecisionSchema, clipText, parseInbound, SPEC_VERSION, type ActionDecision, type JournalEntryDraft, type ReasonCode } from '@arvis/contracts';
import { canonicalJson, commitment } from '@arvis/crypto';
import { appendJournal } from '@arvis/journal';
import type { IsolatedMessage } from '@arvis/kafka';
import { InboxStore } from '@arvis/lifecycle';
import { isTransientFault } from '@arvis/runtime';
import { enqueueOutbox } from '@arvis/outbox';
import { Database, type Tx } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { decisionDeadLetter } from '../receive-decisions/decision-dead-letter';
import { VerifyIdentityService, type IdentityResult } from '../../policy/verify-identity/verify-identity.service';
import { traceIdOf } from '@arvis/tracing';

type Verified = Extract<IdentityResult, { ok: true }>;

// A lone surrogate in an error message would make the refusal itself unrepresentable (RFC 8785).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const explain = (error: Error): string => clipText(error.message.replace(LONE_SURROGATE, '\ufffd'), 300);

/**
 * A decision message whose handling failed every time (the transport narrowed its slice down to
 * it). An authenticated decision ends with one final refusal, `decision_unprocessable`, and an
 * inbox row (so a redelivery is a no-op); every isolated message gets a DLQ record. If the
 * refusal itself cannot be recorded, the DLQ record alone carries the decisionId. A transient
 * fault is thrown back, and the transport waits it out.
 */
@Injectable()
export class IsolateDecisionService {
  private readonly log = new Logger(IsolateDecisionService.name);

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly inbox: InboxStore,
    private readonly identity: VerifyIdentityService,
  ) {}

  async handle({ message, error, attempts }: IsolatedMessage): Promise<void> {
    const receivedAt = new Date();
    const why = `handling failed ${attempts} time(s): ${explain(error)}`;
    const parsed = parseInbound(ActionDecisionSchema, message.value, { maxBytes: this.config.maxDecisionBytes });
    const decision = parsed.ok ? (parsed.value as ActionDecision) : undefined;
    const verified = decision ? await this.identity.verify(decision.identity) : undefined;
    const deadLetterOnly = (reasonCode: ReasonCode, detail: string, decisionId?: string) =>
      this.db.tx((tx) => enqueueOutbox(tx, [this.deadLetter(message, reasonCode, detail, receivedAt, decisionId)]));
    if (!decision || !verified?.ok) {
      // Not attributable to anyone: no inbox row, no journal entry.
      await deadLetterOnly('decision_unprocessable', why, verified && !verified.ok ? decision?.decisionId : undefined);
      return;
    }
    try {
      await this.db.tx((tx) => this.refuse(tx, message, decision, verified, why, receivedAt));
      // Isolation is rare (a decision that failed every attempt): one line, with its ids.
      const traceId = message.headers?.traceparent ? traceIdOf({ traceparent: message.headers.traceparent }) : undefined;
      this.log.warn({ msg: 'decision isolated and refused', decisionId: decision.decisionId, runId: decision.runId, tenant: verified.identity.tenant, tool: decision.tool, reasonCode: 'decision_unprocessable', ...(traceId ? { traceId } : {}) });
    } catch (e) {
      if (isTransientFault(e)) throw e;
      this.log.error({ msg: 'decision could not be refused in the journal', decisionId: decision.decisionId, runId: decision.runId, tenant: verified.identity.tenant, error: (e as Error).message });
      await deadLetterOnly('decision_unprocessable', `${why}; its refusal could not be journaled: ${explain(e as Error)}`, decision.decisionId);
    }
  }

  private async refuse(tx: Tx, message: IsolatedMessage['message'], d: ActionDecision, verified: Verified, why: string, receivedAt: Date) {
    const who = verified.identity;
    // Like every inbox row, without the token (ADR 0035).
    const { identity: _token, ...withoutToken } = d;
    const claimed = await this.inbox.isolate(tx, {
      decisionId: d.decisionId,
      tenant: verified.stored.tenant,
      runId: d.runId,
      causalId: d.causalId,
      tool: d.tool,
      bodySha256: commitment(d),
      body: canonicalJson(withoutToken),
      identitySha256: verified.stored.tokenSha256,
      identityClaims: JSON.stringify(verified.stored),
      sourcePartition: message.partition,
      sourceOffset: message.offset,
    });
    // The id already names a decision (this one, handled before, or another body): it keeps its
    // one outcome; this message only gets its dead letter.
    const dlq = this.deadLetter(message, 'decision_unprocessable', claimed ? why : `${why}; decision ${d.decisionId} was already received`, receivedAt, d.decisionId);
    await enqueueOutbox(tx, [dlq]);
    if (!claimed) return;
    const [{ now }] = await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const entry: JournalEntryDraft = {
      specVersion: SPEC_VERSION,
      kind: 'authorization_refusal',
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: who.tenant,
      principal: who.principal,
      tool: d.tool,
      effectBoundary: 'pre_effect_refusal',
      success: false,
      reasonCode: 'decision_unprocessable',
      error: { code: 'decision_unprocessable', message: `the decision could not be processed: ${why}` },
      recordedAt: now.toISOString(),
    };
    await appendJournal(tx, [entry], this.config.topics.journal);
  }

  private deadLetter(message: IsolatedMessage['message'], reasonCode: ReasonCode, detail: string, receivedAt: Date, decisionId?: string) {
    return decisionDeadLetter(message, this.config.topics.decisionsDlq, { reasonCode, detail, decisionId }, receivedAt, this.config.dlq.maxRawBytes);
  }
}
