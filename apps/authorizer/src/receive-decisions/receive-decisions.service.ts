import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ActionDecisionSchema,
  buildDlqRecord,
  parseInbound,
  type ActionDecision,
  type InternalRetryDecision,
  type JournalEntryDraft,
  type ReasonCode,
} from '@arvis/contracts';
import { canonicalJson, commitment } from '@arvis/effect-context';
import { appendJournal } from '@arvis/journal';
import type { InboundMessage, KafkaBatch } from '@arvis/kafka';
import { enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import { PrismaService, type Tx } from '@arvis/persistence';
import { AuthorizeDecisionService } from '../authorize-decision/authorize-decision.service';
import type { Authorization, Authorized, Refused } from '../authorize-decision/authorization.types';
import { CommitIntentService, IntentSinkError, type AbortedIntent } from '../commit-intent/commit-intent.service';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

/** A decision ready for policy: from the topic (with its message) or made by the system (a retry). */
export interface Readable {
  message?: InboundMessage;
  decision: ActionDecision | InternalRetryDecision;
  bodySha256: string;
}

export interface BatchOutcome {
  authorized: number;
  refused: number;
  redelivered: number;
  deadLettered: number;
}

/**
 * One slice of arvis.decisions in one transaction: inbox rows, intents, capabilities, refusals
 * in the journal, dead letters and outbox rows commit together, and only then are offsets
 * committed. A redelivered decision finds its inbox row and produces nothing new.
 */
@Injectable()
export class ReceiveDecisionsService {
  private readonly log = new Logger(ReceiveDecisionsService.name);

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly prisma: PrismaService,
    private readonly authorizer: AuthorizeDecisionService,
    private readonly intents: CommitIntentService,
  ) {}

  async handle(batch: KafkaBatch): Promise<BatchOutcome> {
    const receivedAt = new Date();
    const deadLetters: OutboxRow[] = [];
    const readable: Readable[] = [];
    const seen = new Map<string, string>();
    for (const message of batch.messages) {
      const parsed = parseInbound(ActionDecisionSchema, message.value, { maxBytes: this.config.maxDecisionBytes });
      if (!parsed.ok) {
        deadLetters.push(this.deadLetter(message, parsed.reasonCode, parsed.detail, receivedAt));
        continue;
      }
      const decision = parsed.value as ActionDecision;
      const bodySha256 = commitment(decision);
      // The same decision twice in one slice: the second is a redelivery or a conflict.
      const earlier = seen.get(decision.decisionId);
      if (earlier !== undefined) {
        if (earlier !== bodySha256) deadLetters.push(this.conflict(message, decision, receivedAt));
        continue;
      }
      seen.set(decision.decisionId, bodySha256);
      readable.push({ message, decision, bodySha256 });
    }

    return this.decide(readable, deadLetters, receivedAt);
  }

  /**
   * Policy, then one transaction for the lot. `alsoInTx` lets a caller commit its own bookkeeping
   * with the outcome (the retry worker marks its rows submitted).
   */
  async decide(
    readable: Readable[],
    deadLetters: OutboxRow[],
    receivedAt: Date,
    alsoInTx: (tx: Tx) => Promise<void> = async () => undefined,
  ): Promise<BatchOutcome> {
    // Policy runs outside the transaction: it reads nothing that the transaction writes.
    const outcomes = await Promise.all(readable.map((r) => this.authorizer.authorize(r.decision)));
    const run = (isolate: boolean) =>
      this.prisma.tx(async (tx) => {
        const result = await this.apply(tx, readable, outcomes, deadLetters, receivedAt, isolate);
        await alsoInTx(tx);
        return result;
      });
    try {
      return await run(false);
    } catch (e) {
      if (!(e instanceof IntentSinkError)) throw e;
      // Some intent could not be recorded: redo the slice with one savepoint per intent, so only
      // the decisions concerned are aborted.
      this.log.warn(`${e.message}; retrying the slice intent by intent`);
      return run(true);
    }
  }

  private async apply(
    tx: Tx,
    readable: Readable[],
    outcomes: Authorization[],
    parseDeadLetters: OutboxRow[],
    receivedAt: Date,
    isolate: boolean,
  ): Promise<BatchOutcome> {
    const deadLetters = [...parseDeadLetters];
    const existing = await tx.decisionInbox.findMany({
      where: { decisionId: { in: readable.map((r) => r.decision.decisionId) } },
      select: { decisionId: true, bodySha256: true },
    });
    const known = new Map(existing.map((e) => [e.decisionId, e.bodySha256]));
    const fresh: { r: Readable; outcome: Authorization }[] = [];
    let redelivered = 0;
    readable.forEach((r, i) => {
      const prior = known.get(r.decision.decisionId);
      if (prior === undefined) fresh.push({ r, outcome: outcomes[i] });
      else if (prior === r.bodySha256) redelivered++;
      else if (r.message) deadLetters.push(this.conflict(r.message, r.decision, receivedAt));
      else this.log.error(`system decision ${r.decision.decisionId} conflicts with a stored one; not submitted again`);
    });
    const authorized = fresh.map((f) => f.outcome).filter((o): o is Authorized => o.ok);
    const refused = fresh.map((f) => f.outcome).filter((o): o is Refused => !o.ok);
    const { aborted } = await this.intents.commit(tx, authorized, receivedAt, isolate);
    const abortedIds = new Set(aborted.map((x) => x.authorized.decision.decisionId));
    // A concurrent consumer of the same partition (after a rebalance) conflicts on the primary
    // key here and the whole slice retries, then sees these rows as redeliveries.
    await tx.decisionInbox.createMany({
      data: fresh.map(({ r, outcome }) => ({
        decisionId: r.decision.decisionId,
        runId: r.decision.runId,
        causalId: r.decision.causalId,
        tool: r.decision.tool,
        bodySha256: r.bodySha256,
        body: canonicalJson(r.decision),
        status: outcome.ok && !abortedIds.has(r.decision.decisionId) ? 'authorized' : 'refused',
      })),
    });
    await enqueueOutbox(tx, deadLetters);
    await appendJournal(
      tx,
      [...refused.map((o) => this.refusalEntry(o, receivedAt)), ...aborted.map((x) => this.abortEntry(x, receivedAt))],
      this.config.topics.journal,
    );
    if (deadLetters.length > 0) this.log.warn(`${deadLetters.length} message(s) dead-lettered`);
    return {
      authorized: authorized.length - aborted.length,
      refused: refused.length + aborted.length,
      redelivered,
      deadLettered: deadLetters.length,
    };
  }

  private abortEntry(x: AbortedIntent, at: Date): JournalEntryDraft {
    const d = x.authorized.decision;
    return {
      kind: 'admission_refusal',
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: x.authorized.identity.tenant,
      principal: x.authorized.identity.principal,
      tool: d.tool,
      idempotencyKey: x.authorized.idempotencyKey,
      effectBoundary: 'pre_effect_refusal',
      success: false,
      reasonCode: x.reasonCode,
      error: { code: x.reasonCode, message: x.detail, ...(x.receiptReason ? { details: { receiptReason: x.receiptReason } } : {}) },
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
  }

  private refusalEntry(o: Refused, at: Date): JournalEntryDraft {
    const d = o.decision;
    return {
      kind: 'authorization_refusal',
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: o.tenant,
      principal: o.principal,
      tool: d.tool,
      effectBoundary: 'pre_effect_refusal',
      success: false,
      reasonCode: o.reasonCode,
      error: { code: o.reasonCode, message: o.detail },
      ...('retry' in d && d.retry ? { retry: d.retry } : {}),
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
  }

  private conflict(message: InboundMessage, d: ActionDecision, at: Date): OutboxRow {
    return this.deadLetter(message, 'decision_conflict', `decision ${d.decisionId} was already received with another body`, at);
  }

  private deadLetter(message: InboundMessage, reasonCode: ReasonCode, detail: string, receivedAt: Date): OutboxRow {
    const record = buildDlqRecord({
      sourceTopic: message.topic,
      partition: message.partition,
      offset: message.offset,
      reasonCode,
      detail,
      raw: message.value,
      receivedAt,
    });
    return { topic: this.config.topics.decisionsDlq, key: message.key ?? `${message.partition}:${message.offset}`, payload: JSON.stringify(record) };
  }
}
