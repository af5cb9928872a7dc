import { Injectable } from '@nestjs/common';
import type { EffectBoundary, ReasonCode } from '@arvis/contracts';
import { auditIncompleteEntry, toolResultEntry, type CapabilityFacts, type JournalDraft, type ResultFields } from '@arvis/journal';
import { ConfirmationStore, EffectStore, type ClosedWaiter } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import type { ToolRetryPolicy } from '@arvis/tool-sdk';
import { storedFactsOf } from '../../intake/dispatch-intents/stored-facts';
import { RequestRetriesService } from '../request-retries/request-retries.service';

/** One effect to close, with what its journal entry and its duplicates need. */
export interface EffectClosing {
  facts: CapabilityFacts;
  result: ResultFields;
  /**
   * A confirmation may be reserved by this capability (its closing releases or spends it). False
   * only where it is known none was, so no statement is spent on it (ADR 0050).
   */
  confirmationReserved: boolean;
  /** Its effect holds its idempotency key, so duplicates may wait for it (ADR 0020). */
  holdsKey: boolean;
}

/** A claim's duplicate whose holder ended before it was claimed: its row is already closed. */
export interface ClosedDuplicate {
  facts: CapabilityFacts;
  /** The holder's outcome it takes (effect_completed or _state_unknown), or effect_not_started: not run. */
  result: ResultFields;
}

/**
 * Why an effect closes. It decides the retry: a body's own failure is retried only when its tool
 * says repeating it is safe; an effect that ended without running (recovery found it never began,
 * its holder released the key) may always be retried; a result that could not be journaled never.
 */
type Cause = 'result' | 'recovery' | 'audit_incomplete' | 'duplicate';

export const NOT_RUN: ResultFields = {
  effectBoundary: 'effect_not_started',
  success: false,
  reasonCode: 'idempotency_key_in_use',
  error: { code: 'idempotency_key_in_use', message: 'another decision with this idempotency key held it, and its effect did not happen; nothing ran' },
};

/**
 * The one owner of closing an effect: the row moves (one statement per cause, EffectStore), its
 * confirmation is released or spent, a retry is requested when one is due, the duplicates waiting
 * for it are closed with its outcome, and the final entries are drafted. Each method returns the
 * drafts for the caller to journal in the same transaction, with its other entries, so a slice
 * still appends to the journal once (one head lock per transaction).
 */
@Injectable()
export class CloseEffectsService {
  constructor(
    private readonly effects: EffectStore,
    private readonly confirmations: ConfirmationStore,
    private readonly retries: RequestRetriesService,
    private readonly catalog: ToolCatalog,
  ) {}

  /**
   * Bodies' classified results. Only effects still started move: recovery may have closed a slow
   * one already, and its entry stands. Returns the drafts and the closings that did not move.
   */
  async closeWithResults(tx: Tx, closings: readonly EffectClosing[]): Promise<{ drafts: JournalDraft[]; notMoved: EffectClosing[] }> {
    // The results' UPDATE and the waiters' are issued together, so they share a round trip (ADR
    // 0090); the waiters' is still a statement of its own, after the results' (ADR 0083). It is
    // issued for every holder of a key before knowing which moved: EffectStore.closeWaiters closes
    // only waiters of a holder now in the state given, so one recovery closed first (in another
    // state) keeps its waiters, and any it does close take the outcome their holder has.
    const holders = closings.filter((c) => c.holdsKey);
    const [moved, waiters] = await Promise.all([
      this.effects.finish(tx, closings.map(finished)),
      holders.length > 0 ? this.effects.closeWaiters(tx, holders.map(waitedFor)) : [],
    ]);
    const closed = closings.filter((c) => moved.has(c.facts.capabilityId));
    const drafts = [...(await this.settle(tx, closed, 'result')), ...(await this.settleWaiters(tx, holders, waiters))];
    return { drafts, notMoved: closings.filter((c) => !moved.has(c.facts.capabilityId)) };
  }

  /** Locked lost effects (EffectStore.lockLost), with the outcome recovery settled on for each. */
  async closeLost(tx: Tx, closings: readonly EffectClosing[]): Promise<JournalDraft[]> {
    await this.effects.closeLost(tx, closings.map(finished));
    return [...(await this.settle(tx, closings, 'recovery')), ...(await this.closeWaiters(tx, closings))];
  }

  /**
   * Results that could not be journaled: the classified state is kept (so recovery does not call
   * them unknown) and each gets a non-final audit_incomplete entry instead of its result.
   */
  async closeAuditIncomplete(tx: Tx, closings: readonly EffectClosing[], reason: string): Promise<JournalDraft[]> {
    await this.effects.finishAuditIncomplete(tx, closings.map(finished));
    // Not told which reserved a confirmation or hold a key here: every statement runs.
    const all = closings.map((c) => ({ ...c, confirmationReserved: true, holdsKey: true }));
    return [...(await this.settle(tx, all, 'audit_incomplete', (c) => auditIncompleteEntry(c.facts, c.result.effectBoundary, reason))), ...(await this.closeWaiters(tx, all))];
  }

  /** Duplicates closed at their claim because their holder had already ended (their rows moved there). */
  settleDuplicates(tx: Tx, duplicates: readonly ClosedDuplicate[]): Promise<JournalDraft[]> {
    return this.settle(tx, duplicates.map((d) => ({ ...d, confirmationReserved: true, holdsKey: false })), 'duplicate');
  }

  /** What every closing shares once its rows moved (its waiters apart: each caller closes them). */
  private async settle(
    tx: Tx,
    closed: readonly EffectClosing[],
    cause: Cause,
    entryOf: (c: EffectClosing) => JournalDraft = (c) => toolResultEntry(c.facts, c.result),
  ): Promise<JournalDraft[]> {
    if (closed.length === 0) return [];
    const reserved = closed.filter((c) => c.confirmationReserved);
    await this.confirmations.finalize(tx, reserved.map((c) => c.facts.capabilityId), reserved.map((c) => c.result.effectBoundary));
    await this.retries.request(tx, closed.filter((c) => this.retryDue(cause, c)).map((c) => ({ ...c.facts, policy: this.catalog.get(c.facts.tool)?.retry })));
    return closed.map(entryOf);
  }

  /** The waiters of those of `closed` that hold their key, closed after them, and their drafts. */
  private async closeWaiters(tx: Tx, closed: readonly EffectClosing[]): Promise<JournalDraft[]> {
    const holders = closed.filter((c) => c.holdsKey);
    if (holders.length === 0) return [];
    return this.settleWaiters(tx, holders, await this.effects.closeWaiters(tx, holders.map(waitedFor)));
  }

  /**
   * The duplicates closed for these holders take a completed or unknown holder's outcome; any
   * other outcome means no effect happened, so they end not run (and may be retried).
   */
  private async settleWaiters(tx: Tx, holders: readonly EffectClosing[], closed: readonly ClosedWaiter[]): Promise<JournalDraft[]> {
    if (closed.length === 0) return [];
    const byHolder = new Map(holders.map((h) => [h.facts.capabilityId, h]));
    const facts = await storedFactsOf(tx, closed.map((c) => c.capabilityId));
    return this.settle(
      tx,
      closed.map((c) => {
        const holder = byHolder.get(c.holderCapabilityId)!;
        const result = c.state === 'effect_not_started' ? NOT_RUN : holder.result;
        return { facts: facts.get(c.capabilityId)!, result: { ...result, deduplicatedOf: holder.facts.decisionId }, confirmationReserved: true, holdsKey: false };
      }),
      'duplicate',
    );
  }

  private retryDue(cause: Cause, c: EffectClosing): boolean {
    if (cause === 'audit_incomplete') return false;
    if (cause !== 'result') return c.result.effectBoundary === 'effect_not_started';
    // The spec's half of the retry conditions; risk and attempts are checked in SQL.
    const spec = this.catalog.get(c.facts.tool);
    return c.result.effectBoundary === 'effect_failed' && !!spec && spec.retryable && !(spec.sideEffectful && !spec.idempotent) && !neverRetried(spec.retry, c.result);
  }
}

/** The body said so (NonRetryableToolError), or its tool's policy names its own code (ADR 0076). */
export function neverRetried(policy: ToolRetryPolicy | undefined, result: ResultFields): boolean {
  const details = result.error?.details;
  if (details === undefined) return false;
  if (details.nonRetryable === true) return true;
  const code = details.toolErrorCode;
  return typeof code === 'string' && !!policy?.nonRetryableErrorCodes?.includes(code);
}

/** A holder as the waiters' close takes it: its id and the state it closed in. */
function waitedFor(h: EffectClosing): { capabilityId: string; state: EffectBoundary } {
  return { capabilityId: h.facts.capabilityId, state: h.result.effectBoundary };
}

function finished(c: EffectClosing): { capabilityId: string; state: EffectBoundary; reasonCode: ReasonCode | null } {
  return { capabilityId: c.facts.capabilityId, state: c.result.effectBoundary, reasonCode: c.result.reasonCode ?? null };
}
