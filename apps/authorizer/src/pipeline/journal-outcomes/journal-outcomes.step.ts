import { Inject, Injectable, Logger } from '@nestjs/common';
import { clipText } from '@arvis/contracts';
import { appendJournal, confirmationPendingEntry, decisionRefusalEntry, type JournalDraft } from '@arvis/journal';
import { outboxPart, type OutboxRow } from '@arvis/outbox';
import { insertParts, lastStatementOn, NeedsTransaction, type InsertPart, type Tx } from '@arvis/persistence';
import type { Parked, Refused } from '../../policy/authorize-decision/authorization.types';
import { IntentSinkError, type AbortedIntent } from '../commit-intent/intent-sink';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import type { TraceOf } from '../decision-pipeline/decision-traces';

/** Refusal messages quote the sender (schema issues, tool names); cut by code point. */
const MAX_MESSAGE = 500;

/**
 * The journal entries the authorizer owes for a slice (refusals by policy, refusals at admission
 * or by the intent sink, parked decisions), from the journal's typed factories (appendJournal stamps
 * them with the database's time), and the slice's rows: its intents, capabilities and inbox rows
 * with its outbox rows (its intents' messages and dead letters) in one statement, then the entries
 * with their topic copies, last, all in the slice's transaction (ADR 0008, 0003, 0049, 0083, 0084).
 */
@Injectable()
export class JournalOutcomesStep {
  private readonly log = new Logger(JournalOutcomesStep.name);

  constructor(@Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig) {}

  async record(
    tx: Tx,
    /**
     * `inserts`: the slice's other rows (its intents with their messages' outbox rows,
     * capabilities, inbox), for the slice's one insert statement; `intents`: how many intents
     * they hold (bulk path).
     */
    outcomes: { refused: Refused[]; aborted: AbortedIntent[]; parked: Parked[]; deadLetters: OutboxRow[]; intents?: number; inserts?: InsertPart[] },
    traceOf: TraceOf = () => undefined,
  ): Promise<void> {
    const traced = (draft: JournalDraft): JournalDraft => {
      const trace = traceOf(draft.decisionId);
      return trace ? { ...draft, trace } : draft;
    };
    const intents = outcomes.intents ?? 0;
    const drafts = [
      ...outcomes.refused.map((o) => traced(this.refusalEntry(o))),
      ...outcomes.aborted.map((x) => traced(this.abortEntry(x))),
      ...outcomes.parked.map((p) => traced(this.pendingEntry(p))),
    ];
    try {
      // Every row but the journal's first, outside the head lock: the heads are taken by the
      // slice's last statements, as by every other writer, so whoever holds one waits for no
      // other lock, and holds it only for the journal's insert and the commit (ADR 0084). With
      // nothing to journal this insert is the slice's last statement (ADR 0049).
      await insertParts(drafts.length === 0 ? lastStatementOn(tx) : tx, [...(outcomes.inserts ?? []), outboxPart(outcomes.deadLetters)]);
    } catch (e) {
      if (e instanceof NeedsTransaction) throw e;
      // The intents' rows are the sink's (ADR 0005): the slice is redone intent by intent (where
      // an inbox row that conflicts fails the slice as a whole, as it did on its own statement).
      throw intents > 0 ? new IntentSinkError(e) : e;
    }
    // The entries, the heads' moves and the entries' topic copies, last (appendJournal).
    await appendJournal(tx, drafts, this.config.topics.journal);
    // Each dead letter is logged where it is made (deadLetterRow), with its ids and reason code.
  }

  private pendingEntry(p: Parked): JournalDraft {
    const d = p.decision;
    return confirmationPendingEntry(
      { ...this.factsOf(d), tenant: p.identity.tenant, principal: p.identity.principal },
      `${d.tool} needs an approver's confirmation; the decision is parked`,
    );
  }

  private abortEntry(x: AbortedIntent): JournalDraft {
    const d = x.authorized.decision;
    return decisionRefusalEntry(
      'admission_refusal',
      { ...this.factsOf(d), tenant: x.authorized.identity.tenant, principal: x.authorized.identity.principal, idempotencyKey: x.authorized.idempotencyKey },
      { code: x.reasonCode, message: clipText(x.detail, MAX_MESSAGE), ...(x.receiptReason ? { details: { receiptReason: x.receiptReason } } : {}) },
    );
  }

  private refusalEntry(o: Refused): JournalDraft {
    // The immutable denial snapshot travels with the refusal into the record.
    return decisionRefusalEntry(
      'authorization_refusal',
      { ...this.factsOf(o.decision), tenant: o.tenant, principal: o.principal },
      { code: o.reasonCode, message: clipText(o.detail, MAX_MESSAGE), details: { snapshot: o.snapshot } },
    );
  }

  private factsOf(d: Refused['decision']) {
    return { decisionId: d.decisionId, runId: d.runId, causalId: d.causalId, tool: d.tool, ...('retry' in d && d.retry ? { retry: d.retry } : {}) };
  }
}
