import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ActionDecisionSchema,
  buildDlqRecord,
  parseInbound,
  type ActionDecision,
  type JournalEntryDraft,
  type ReasonCode,
} from '@arvis/contracts';
import { commitment } from '@arvis/effect-context';
import { appendJournal } from '@arvis/journal';
import type { InboundMessage, KafkaBatch } from '@arvis/kafka';
import { enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import { PrismaService } from '@arvis/persistence';
import { AuthorizeDecisionService } from '../authorize-decision/authorize-decision.service';
import type { Authorization, Authorized, Refused } from '../authorize-decision/authorization.types';
import { CommitIntentService } from '../commit-intent/commit-intent.service';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

interface Readable {
  message: InboundMessage;
  decision: ActionDecision;
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

    // Policy runs outside the transaction: it reads nothing that the transaction writes.
    const outcomes = await Promise.all(readable.map((r) => this.authorizer.authorize(r.decision)));

    const result: BatchOutcome = { authorized: 0, refused: 0, redelivered: 0, deadLettered: 0 };
    await this.prisma.tx(async (tx) => {
      const existing = await tx.decisionInbox.findMany({
        where: { decisionId: { in: readable.map((r) => r.decision.decisionId) } },
        select: { decisionId: true, bodySha256: true },
      });
      const known = new Map(existing.map((e) => [e.decisionId, e.bodySha256]));
      const fresh: { r: Readable; outcome: Authorization }[] = [];
      readable.forEach((r, i) => {
        const prior = known.get(r.decision.decisionId);
        if (prior === undefined) fresh.push({ r, outcome: outcomes[i] });
        else if (prior === r.bodySha256) result.redelivered++;
        else deadLetters.push(this.conflict(r.message, r.decision, receivedAt));
      });
      // A concurrent consumer of the same partition (after a rebalance) conflicts on the
      // primary key here and the whole slice retries, then sees these rows as redeliveries.
      await tx.decisionInbox.createMany({
        data: fresh.map(({ r, outcome }) => ({
          decisionId: r.decision.decisionId,
          runId: r.decision.runId,
          causalId: r.decision.causalId,
          tool: r.decision.tool,
          bodySha256: r.bodySha256,
          status: outcome.ok ? 'authorized' : 'refused',
        })),
      });
      const authorized = fresh.map((f) => f.outcome).filter((o): o is Authorized => o.ok);
      const refused = fresh.map((f) => f.outcome).filter((o): o is Refused => !o.ok);
      await this.intents.commit(tx, authorized, receivedAt);
      await enqueueOutbox(tx, deadLetters);
      await appendJournal(tx, refused.map((o) => this.refusalEntry(o, receivedAt)), this.config.topics.journal);
      result.authorized = authorized.length;
      result.refused = refused.length;
      result.deadLettered = deadLetters.length;
    });
    if (result.deadLettered > 0) {
      this.log.warn(`${result.deadLettered} message(s) from ${batch.topic}[${batch.partition}] dead-lettered`);
    }
    return result;
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
