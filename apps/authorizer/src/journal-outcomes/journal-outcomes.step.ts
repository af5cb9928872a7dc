import { Inject, Injectable, Logger } from '@nestjs/common';
import { clipText, type JournalEntryDraft, type JournalError } from '@arvis/contracts';
import { appendJournal } from '@arvis/journal';
import { enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import type { Tx } from '@arvis/persistence';
import type { Parked, Refused } from '../authorize-decision/authorization.types';
import type { AbortedIntent } from '../commit-intent/commit-intent.service';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

/** Refusal messages quote the sender (schema issues, tool names); cut by code point. */
const MAX_MESSAGE = 500;

/**
 * The journal entries the authorizer owes for a slice (refusals by policy, refusals at admission
 * or by the intent sink, parked decisions), stamped with the database's time, and the slice's
 * dead letters: all in the slice's transaction (ADR 0008, 0003).
 */
@Injectable()
export class JournalOutcomesStep {
  private readonly log = new Logger(JournalOutcomesStep.name);

  constructor(@Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig) {}

  async record(
    tx: Tx,
    outcomes: { refused: Refused[]; aborted: AbortedIntent[]; parked: Parked[]; deadLetters: OutboxRow[] },
    recordedAt: Date,
  ): Promise<void> {
    await enqueueOutbox(tx, outcomes.deadLetters);
    await appendJournal(
      tx,
      [
        ...outcomes.refused.map((o) => this.refusalEntry(o, recordedAt)),
        ...outcomes.aborted.map((x) => this.abortEntry(x, recordedAt)),
        ...outcomes.parked.map((p) => this.pendingEntry(p, recordedAt)),
      ],
      this.config.topics.journal,
    );
    if (outcomes.deadLetters.length > 0) this.log.warn(`${outcomes.deadLetters.length} message(s) dead-lettered`);
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
}
