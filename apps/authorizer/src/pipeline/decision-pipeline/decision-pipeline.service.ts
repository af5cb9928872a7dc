import { Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { Tracing } from '@arvis/tracing';
import { AdmitDecisionService } from '../admit-decision/admit-decision.service';
import { AuthorizeDecisionService, type AuthorizeItem } from '../../policy/authorize-decision/authorize-decision.service';
import type { Authorization, Authorized, Parked, Refused } from '../../policy/authorize-decision/authorization.types';
import { IntentSink, IntentSinkError, type AbortedIntent } from '../commit-intent/intent-sink';
import { JournalOutcomesStep } from '../journal-outcomes/journal-outcomes.step';
import { ParkDecisionStep } from '../park-decision/park-decision.step';
import { RecordInboxStep, type Fresh } from '../record-inbox/record-inbox.step';
import { DecisionTraces } from './decision-traces';
import { scopedKey, tenantOf, type BatchOutcome, type Candidate, type PipelineInput } from './pipeline.types';
import { readSlice, type SliceReads } from './read-slice';

/**
 * The one path every decision takes, whoever hands it in (the decisions consumer, the resume
 * worker, the retry worker), in named steps, all in one transaction (ADR 0049):
 *   the source's claim → the slice's one read statement → record-inbox (sort) →
 *   authorize-decision (policy) → admit-decision → commit-intent → park-decision →
 *   record-inbox (write) → journal-outcomes (with the slice's one outbox statement) → the
 *   source's acknowledgement.
 * Offsets (for the consumer) are committed only after this resolves (ADR 0001).
 */
@Injectable()
export class DecisionPipeline {
  private readonly log = new Logger(DecisionPipeline.name);

  constructor(
    private readonly db: Database,
    private readonly authorizer: AuthorizeDecisionService,
    private readonly inbox: RecordInboxStep,
    private readonly admission: AdmitDecisionService,
    private readonly intents: IntentSink,
    private readonly parking: ParkDecisionStep,
    private readonly journal: JournalOutcomesStep,
    private readonly tracing: Tracing,
    private readonly catalog: ToolCatalog,
  ) {}

  async run(input: PipelineInput): Promise<BatchOutcome> {
    const traces = new DecisionTraces(this.tracing, input.candidates);
    try {
      const outcome = await this.runTraced(input, traces);
      traces.end();
      return outcome;
    } catch (e) {
      traces.end(e);
      throw e;
    }
  }

  private async runTraced(input: PipelineInput, traces: DecisionTraces): Promise<BatchOutcome> {
    const attempt = (savepointPerIntent: boolean) =>
      this.db
        .tx(async (tx) => {
          const mine = input.claim ? await input.claim(tx) : () => true;
          const own = { ...input, candidates: input.candidates.filter(mine) };
          const result = await this.inTransaction(tx, own, savepointPerIntent, traces);
          await input.acknowledge?.(tx, own.candidates);
          return result;
        })
        .catch((e: unknown) => {
          traces.endCommits(e);
          throw e;
        });
    try {
      return await attempt(false);
    } catch (e) {
      if (!(e instanceof IntentSinkError)) throw e;
      // Some intent could not be recorded: redo the slice with one savepoint per intent, so only
      // the decisions concerned are aborted (ADR 0005).
      this.log.warn({ msg: 'an intent could not be recorded; retrying the slice intent by intent', error: e.message });
      return attempt(true);
    }
  }

  /** Policy's, the inbox's and admission's reads in one statement, first in the transaction (ADR 0049). */
  private read(tx: Tx, candidates: Candidate[]): Promise<SliceReads> {
    const needs = this.authorizer.needsOf(candidates.map(itemOf));
    const sessions = new Set(candidates.flatMap((c) => (c.identity?.ok ? c.identity.identity.sessionId : c.stored?.sessionId) ?? []));
    return readSlice(tx, {
      ...needs,
      claiming: candidates.filter((c) => c.origin.kind !== 'resumed').map((c) => ({ tenant: tenantOf(c), decisionId: c.decision.decisionId })),
      sessionIds: [...sessions],
      // An upper bound: every decision with an identity and a known tool might be allowed. An
      // unused position is a gap, as after a rollback.
      positions: candidates.filter((c) => (c.identity?.ok || c.stored) && this.catalog.get(c.decision.tool)).length,
    });
  }

  private async inTransaction(tx: Tx, input: PipelineInput, savepointPerIntent: boolean, traces: DecisionTraces): Promise<BatchOutcome> {
    // The record's time is the database's: journal entries' recordedAt, the receipt's committedAt.
    const reads = await this.read(tx, input.candidates);
    const { fresh: sorted, redelivered, conflicts } = this.inbox.sort(input.candidates, reads.inbox);
    const outcomes = await this.authorizer.authorizeAll(sorted.map(itemOf), reads);
    const fresh: Fresh[] = sorted.map((candidate, i) => ({ candidate, outcome: outcomes[i] }));
    const of = <T extends Authorization>(keep: (o: Authorization) => o is T) => outcomes.filter(keep);
    const authorized = of((o): o is Authorized => o.ok);
    const refused = of((o): o is Refused => !o.ok && !o.parked);
    const parked = of((o): o is Parked => !o.ok && o.parked === true);

    const { admitted, refused: notAdmitted } = await this.admission.admit(authorized, reads);
    const notAdmittedAborts: AbortedIntent[] = notAdmitted.map((x) => ({ authorized: x.authorized, reasonCode: x.reasonCode, detail: x.detail }));
    await this.intents.revokeWithoutIntent(tx, notAdmittedAborts);
    traces.startCommits(admitted.map((a) => a.decision.decisionId));
    const sink = await this.intents.commit(tx, admitted, { committedAt: reads.now, positions: reads.positions }, savepointPerIntent, traces.traceOf);
    const aborted = [...notAdmittedAborts, ...sink.aborted];
    await this.parking.park(tx, parked);

    // By the tenant's id (ADR 0061): another tenant's decision with this id in the slice is another decision.
    const abortedIds = new Set(aborted.map((x) => scopedKey(x.authorized.identity.tenant, x.authorized.decision.decisionId)));
    const statusOf = (f: Fresh) =>
      f.outcome.ok ? (abortedIds.has(scopedKey(tenantOf(f.candidate), f.candidate.decision.decisionId)) ? 'refused' : 'authorized') : f.outcome.parked ? 'parked' : 'refused';
    const inboxRows = await this.inbox.write(tx, fresh, statusOf);
    const deadLetters = [...input.deadLetters, ...conflicts];
    // The slice's intents, capabilities, inbox and outbox rows go in with one statement, last (ADR 0083).
    await this.journal.record(tx, { refused, aborted, parked, deadLetters, intents: savepointPerIntent ? 0 : sink.messages.length, inserts: [...sink.inserts, inboxRows] }, traces.traceOf);
    return {
      authorized: admitted.length - sink.aborted.length,
      refused: refused.length + aborted.length,
      parked: parked.length,
      redelivered,
      deadLettered: deadLetters.length,
    };
  }
}

/** A candidate as policy takes it. */
const itemOf = (c: Candidate): AuthorizeItem => ({ decision: c.decision, identity: c.identity, stored: c.stored, resumed: c.origin.kind === 'resumed' });
