import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ActionDecisionSchema,
  clipText,
  parseInbound,
  type ActionDecision,
  type JournalEntryDraft,
  type JournalError,
  type ReasonCode,
} from '@arvis/contracts';
import { faultFor } from '@arvis/config';
import { canonicalJson, commitment } from '@arvis/effect-context';
import { appendJournal } from '@arvis/journal';
import { ConfirmationStore } from '@arvis/lifecycle';
import type { InboundMessage, KafkaBatch } from '@arvis/kafka';
import { enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import { insertRows, PrismaService, type ColumnMap, type Tx } from '@arvis/persistence';
import { AdmitDecisionService } from '../admit-decision/admit-decision.service';
import { AuthorizeDecisionService } from '../authorize-decision/authorize-decision.service';
import type { Authorization, Authorized, Decision, Parked, Refused } from '../authorize-decision/authorization.types';
import { CommitIntentService, IntentSinkError, type AbortedIntent } from '../commit-intent/commit-intent.service';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { VerifyIdentityService, type IdentityResult } from '../verify-identity/verify-identity.service';
import { decisionDeadLetter } from './decision-dead-letter';

/** Refusal messages quote the sender (schema issues, tool names); cut by code point. */
const MAX_MESSAGE = 500;

/** A decision ready for policy: from the topic (with its message) or made by the system. */
export interface Readable {
  message?: InboundMessage;
  decision: Decision;
  bodySha256: string;
  /** A parked decision coming back after approval: its inbox row exists and is updated. */
  resumed?: boolean;
  /** The token as verified at intake (messages only); system decisions are verified by policy. */
  identity?: IdentityResult;
}

export interface BatchOutcome {
  authorized: number;
  refused: number;
  parked: number;
  redelivered: number;
  deadLettered: number;
}

/**
 * Decisions in: one slice of arvis.decisions (or a batch of system decisions) in one
 * transaction: inbox rows, admission, intents and capabilities, parked confirmations, refusals
 * in the journal, dead letters and outbox rows commit together, and only then are offsets
 * committed. A redelivered decision finds its inbox row and produces nothing new.
 */
const INBOX_COLUMNS: ColumnMap<{ r: Readable; status: string }> = {
  decision_id: ['text', (x) => x.r.decision.decisionId],
  run_id: ['text', (x) => x.r.decision.runId],
  causal_id: ['text', (x) => x.r.decision.causalId],
  tool: ['text', (x) => x.r.decision.tool],
  body_sha256: ['text', (x) => x.r.bodySha256],
  body: ['text', (x) => canonicalJson(x.r.decision)],
  status: ['text', (x) => x.status],
};

@Injectable()
export class ReceiveDecisionsService {
  private readonly log = new Logger(ReceiveDecisionsService.name);

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly prisma: PrismaService,
    private readonly authorizer: AuthorizeDecisionService,
    private readonly identity: VerifyIdentityService,
    private readonly admission: AdmitDecisionService,
    private readonly intents: CommitIntentService,
    private readonly confirmations: ConfirmationStore,
  ) {}

  async handle(batch: KafkaBatch): Promise<BatchOutcome> {
    const receivedAt = new Date();
    const deadLetters: OutboxRow[] = [];
    const parsed: { message: InboundMessage; decision: ActionDecision }[] = [];
    for (const message of batch.messages) {
      const result = parseInbound(ActionDecisionSchema, message.value, { maxBytes: this.config.maxDecisionBytes });
      if (result.ok && faultFor(this.config.faults.decisionHandlingFails, result.value.decisionId)) {
        throw new Error(`fault point decisionHandlingFails: ${result.value.decisionId}`);
      }
      if (result.ok) parsed.push({ message, decision: result.value as ActionDecision });
      else deadLetters.push(this.deadLetter(message, { reasonCode: result.reasonCode, detail: result.detail }, receivedAt));
    }
    // Identity first, before canonicalisation, hashing or the database: a message whose token
    // does not verify is attributable to no one, so it claims no decisionId (no inbox row) and
    // writes nothing to the journal; its dead letter names the id it claimed.
    const identities = await Promise.all(parsed.map((p) => this.identity.verify(p.decision.identity)));
    const readable: Readable[] = [];
    const seen = new Map<string, string>();
    parsed.forEach(({ message, decision }, i) => {
      const identity = identities[i];
      if (!identity.ok && identity.reasonCode === 'identity_invalid') {
        deadLetters.push(this.deadLetter(message, { reasonCode: 'identity_invalid', detail: identity.detail, decisionId: decision.decisionId }, receivedAt));
        return;
      }
      let bodySha256: string;
      try {
        bodySha256 = commitment(decision);
      } catch (e) {
        // Valid JSON that RFC 8785 cannot represent (a lone surrogate): unreadable, not a fault.
        deadLetters.push(this.deadLetter(message, { reasonCode: 'malformed_message', detail: `not representable as canonical JSON: ${(e as Error).message}` }, receivedAt));
        return;
      }
      // The same decision twice in one slice: the second is a redelivery or a conflict.
      const earlier = seen.get(decision.decisionId);
      if (earlier !== undefined) {
        if (earlier !== bodySha256) deadLetters.push(this.conflict(message, decision, receivedAt));
        return;
      }
      seen.set(decision.decisionId, bodySha256);
      readable.push({ message, decision, bodySha256, identity });
    });
    return this.decide(readable, deadLetters, receivedAt);
  }

  /**
   * Policy, then one transaction for the lot. `alsoInTx` lets a caller commit its own bookkeeping
   * with the outcome (the retry and confirmation workers mark their rows).
   */
  async decide(
    readable: Readable[],
    deadLetters: OutboxRow[],
    receivedAt: Date,
    alsoInTx: (tx: Tx) => Promise<void> = async () => undefined,
  ): Promise<BatchOutcome> {
    // Policy runs outside the transaction; admission re-checks identity inside it.
    const outcomes = await this.authorizer.authorizeAll(readable.map((r) => ({ decision: r.decision, identity: r.identity })));
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
    // The record's time is the database's: journal entries' recordedAt, the receipt's committedAt.
    const [{ now: recordedAt }] = await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const existing = await tx.decisionInbox.findMany({
      where: { decisionId: { in: readable.filter((r) => !r.resumed).map((r) => r.decision.decisionId) } },
      select: { decisionId: true, bodySha256: true },
    });
    const known = new Map(existing.map((e) => [e.decisionId, e.bodySha256]));
    const fresh: { r: Readable; outcome: Authorization }[] = [];
    let redelivered = 0;
    readable.forEach((r, i) => {
      const prior = r.resumed ? undefined : known.get(r.decision.decisionId);
      if (prior === undefined) fresh.push({ r, outcome: outcomes[i] });
      else if (prior === r.bodySha256) redelivered++;
      else if (r.message) deadLetters.push(this.conflict(r.message, r.decision, receivedAt));
      else this.log.error(`system decision ${r.decision.decisionId} conflicts with a stored one; not submitted again`);
    });
    const authorized = fresh.map((f) => f.outcome).filter((o): o is Authorized => o.ok);
    const refused = fresh.map((f) => f.outcome).filter((o): o is Refused => !o.ok && !o.parked);
    const parked = fresh.map((f) => f.outcome).filter((o): o is Parked => !o.ok && o.parked === true);

    const { admitted, refused: notAdmitted } = await this.admission.admit(tx, authorized, recordedAt);
    const notAdmittedAborts: AbortedIntent[] = notAdmitted.map((x) => ({ authorized: x.authorized, reasonCode: x.reasonCode, detail: x.detail }));
    await this.intents.revokeWithoutIntent(tx, notAdmittedAborts);
    const { aborted: sinkAborts } = await this.intents.commit(tx, admitted, recordedAt, isolate);
    const aborted = [...notAdmittedAborts, ...sinkAborts];
    const abortedIds = new Set(aborted.map((x) => x.authorized.decision.decisionId));
    const parkedIds = new Set(parked.map((p) => p.decision.decisionId));
    await this.park(tx, parked);

    const statusOf = (r: Readable, outcome: Authorization) =>
      parkedIds.has(r.decision.decisionId) ? 'parked' : outcome.ok && !abortedIds.has(r.decision.decisionId) ? 'authorized' : 'refused';
    // A concurrent consumer of the same partition (after a rebalance) conflicts on the primary
    // key here and the whole slice retries, then sees these rows as redeliveries.
    await insertRows(
      tx,
      'decision_inbox',
      INBOX_COLUMNS,
      fresh.filter(({ r }) => !r.resumed).map(({ r, outcome }) => ({ r, status: statusOf(r, outcome) })),
    );
    for (const { r, outcome } of fresh.filter(({ r }) => r.resumed)) {
      const moved = await tx.decisionInbox.updateMany({
        where: { decisionId: r.decision.decisionId, status: 'parked' },
        data: { status: statusOf(r, outcome) },
      });
      if (moved.count !== 1) throw new Error(`parked decision ${r.decision.decisionId} was not parked any more`);
    }
    await enqueueOutbox(tx, deadLetters);
    await appendJournal(
      tx,
      [
        ...refused.map((o) => this.refusalEntry(o, recordedAt)),
        ...aborted.map((x) => this.abortEntry(x, recordedAt)),
        ...parked.map((p) => this.pendingEntry(p, recordedAt)),
      ],
      this.config.topics.journal,
    );
    if (deadLetters.length > 0) this.log.warn(`${deadLetters.length} message(s) dead-lettered`);
    return {
      authorized: admitted.length - sinkAborts.length,
      refused: refused.length + aborted.length,
      parked: parked.length,
      redelivered,
      deadLettered: deadLetters.length,
    };
  }

  /** One pending confirmation per parked decision, bound to tool, payload, principal and tenant. */
  private async park(tx: Tx, parked: Parked[]): Promise<void> {
    const requests = parked.map((p) => ({
      decisionId: p.decision.decisionId,
      tenant: p.identity.tenant,
      principal: p.identity.principal,
      tool: p.spec.name,
      payloadSha256: p.frozen.sha256,
    }));
    await this.confirmations.park(tx, requests, this.config.confirmations.requestTtlMs);
  }

  private pendingEntry(p: Parked, at: Date): JournalEntryDraft {
    const d = p.decision;
    return {
      kind: 'confirmation_pending',
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: p.identity.tenant,
      principal: p.identity.principal,
      tool: d.tool,
      effectBoundary: 'effect_not_started',
      success: false,
      reasonCode: 'confirmation_required',
      error: { code: 'confirmation_required', message: `${d.tool} needs an approver's confirmation; the decision is parked` },
      ...('retry' in d && d.retry ? { retry: d.retry } : {}),
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
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
      error: { code: x.reasonCode, message: clipText(x.detail, MAX_MESSAGE), ...(x.receiptReason ? { details: { receiptReason: x.receiptReason } } : {}) },
      ...('retry' in d && d.retry ? { retry: d.retry } : {}),
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
  }

  private refusalEntry(o: Refused, at: Date): JournalEntryDraft {
    const d = o.decision;
    // The immutable denial snapshot travels with the refusal into the record.
    const error: JournalError = { code: o.reasonCode, message: clipText(o.detail, MAX_MESSAGE), details: { snapshot: o.snapshot } };
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
      error,
      ...('retry' in d && d.retry ? { retry: d.retry } : {}),
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
  }

  private conflict(message: InboundMessage, d: Decision, at: Date): OutboxRow {
    const detail = `decision ${d.decisionId} was already received with another body`;
    return this.deadLetter(message, { reasonCode: 'decision_conflict', detail, decisionId: d.decisionId }, at);
  }

  private deadLetter(message: InboundMessage, reason: { reasonCode: ReasonCode; detail: string; decisionId?: string }, receivedAt: Date): OutboxRow {
    return decisionDeadLetter(message, this.config.topics.decisionsDlq, reason, receivedAt);
  }
}
