import { Injectable, Logger, Optional } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { OutboxRow } from '@arvis/outbox';
import { Database, NeedsTransaction, OneStatementWriter, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { MetricsRegistry } from '@arvis/runtime';
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
 * worker, the retry worker), in named steps (ADR 0049):
 *   the source's claim → the slice's one read statement → record-inbox (sort) →
 *   authorize-decision (policy) → admit-decision → commit-intent → park-decision →
 *   record-inbox (write) → journal-outcomes (with the slice's one outbox statement) → the
 *   source's acknowledgement.
 * A slice runs in one transaction, but for a lone decision from the consumer, which reads on its
 * own and, when its writes are one statement, is written by that statement alone.
 * Offsets (for the consumer) are committed only after this resolves (ADR 0001).
 */
@Injectable()
export class DecisionPipeline {
  private readonly log = new Logger(DecisionPipeline.name);
  /** The consumer's lone decisions' slices, by how they were written (ADR 0049): what the commit count at low load is made of. */
  private readonly written: Counter<'writes'>;

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
    @Optional() metrics?: MetricsRegistry,
  ) {
    this.written = new Counter({
      name: 'arvis_authorizer_slices_written_total',
      help: 'Slices of one decision from the decisions topic, by how they were written: one statement that commits by itself (allowed), or a transaction',
      labelNames: ['writes'],
      registers: metrics ? [metrics] : [],
    });
  }

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
    try {
      return input.claim || input.acknowledge || input.candidates.length !== 1 ? await this.inTransaction(input, false, traces) : await this.onItsOwn(input, traces);
    } catch (e) {
      if (!(e instanceof IntentSinkError)) throw e;
      // Some intent could not be recorded: redo the slice with one savepoint per intent, so only
      // the decisions concerned are aborted (ADR 0005).
      this.log.warn({ msg: 'an intent could not be recorded; retrying the slice intent by intent', error: e.message });
      return this.inTransaction(input, true, traces);
    }
  }

  /**
   * A lone decision from the consumer (no worker's claim): its read runs on its own, and if its
   * writes are the one insert statement (allowed: nothing to journal, park, revoke or reserve),
   * that statement commits by itself, without BEGIN and COMMIT: two round trips of four (ADR
   * 0049). Under READ COMMITTED each statement sees what was committed before it began, in a
   * transaction or not, and the read takes no lock, so judging from an autocommitted read is
   * judging from the same data. Only a lone decision: the read reserves outbox positions, and a
   * nextval that writes WAL (one in 32) gives the read's own commit a WAL flush; a slice of many
   * positions would pay that flush nearly every time, for two round trips it amortises anyway.
   */
  private async onItsOwn(input: PipelineInput, traces: DecisionTraces): Promise<BatchOutcome> {
    const judged = await this.judge(this.db.sql, input.candidates);
    if (writesOneStatement(judged)) {
      try {
        const outcome = await this.attempt(traces, () => this.write(new OneStatementWriter(this.db.sql), input, judged, false, traces));
        this.written.inc({ writes: 'one_statement' });
        return outcome;
      } catch (e) {
        // The sink aborted an intent (a statement to revoke it): nothing ran; in a transaction, then.
        if (!(e instanceof NeedsTransaction)) throw e;
      }
    }
    const outcome = await this.attempt(traces, () => this.db.tx((tx) => this.write(tx, input, judged, false, traces)));
    this.written.inc({ writes: 'transaction' });
    return outcome;
  }

  /** The whole slice in one transaction: a worker's claim first and its acknowledgement last. */
  private inTransaction(input: PipelineInput, savepointPerIntent: boolean, traces: DecisionTraces): Promise<BatchOutcome> {
    return this.attempt(traces, () =>
      this.db.tx(async (tx) => {
        const mine = input.claim ? await input.claim(tx) : () => true;
        const own = { ...input, candidates: input.candidates.filter(mine) };
        const result = await this.write(tx, own, await this.judge(tx, own.candidates), savepointPerIntent, traces);
        await input.acknowledge?.(tx, own.candidates);
        return result;
      }),
    );
  }

  /** One attempt at writing the slice: its commit spans end with it (as failed if it failed, ADR 0028). */
  private attempt(traces: DecisionTraces, write: () => Promise<BatchOutcome>): Promise<BatchOutcome> {
    return write().then(
      (outcome) => outcome,
      (e: unknown) => {
        traces.endCommits(e instanceof NeedsTransaction ? undefined : e);
        throw e;
      },
    );
  }

  /** Policy's, the inbox's and admission's reads in one statement, first in the slice (ADR 0049). */
  private read(sql: Tx, candidates: Candidate[]): Promise<SliceReads> {
    const needs = this.authorizer.needsOf(candidates.map(itemOf));
    const sessions = new Set(candidates.flatMap((c) => (c.identity?.ok ? c.identity.identity.sessionId : c.stored?.sessionId) ?? []));
    return readSlice(sql, {
      ...needs,
      claiming: candidates.filter((c) => c.origin.kind !== 'resumed').map((c) => ({ tenant: tenantOf(c), decisionId: c.decision.decisionId })),
      sessionIds: [...sessions],
      // An upper bound: every decision with an identity and a known tool might be allowed. An
      // unused position is a gap, as after a rollback.
      positions: candidates.filter((c) => (c.identity?.ok || c.stored) && this.catalog.get(c.decision.tool)).length,
    });
  }

  /** The slice's read, then the inbox's sort, policy and admission: what the slice will write. */
  private async judge(sql: Tx, candidates: Candidate[]): Promise<Judged> {
    // The record's time is the database's: journal entries' recordedAt, the receipt's committedAt.
    const reads = await this.read(sql, candidates);
    const { fresh: sorted, redelivered, conflicts } = this.inbox.sort(candidates, reads.inbox);
    const outcomes = await this.authorizer.authorizeAll(sorted.map(itemOf), reads);
    const fresh: Fresh[] = sorted.map((candidate, i) => ({ candidate, outcome: outcomes[i] }));
    const of = <T extends Authorization>(keep: (o: Authorization) => o is T) => outcomes.filter(keep);
    const refused = of((o): o is Refused => !o.ok && !o.parked);
    const parked = of((o): o is Parked => !o.ok && o.parked === true);
    const { admitted, refused: notAdmitted } = await this.admission.admit(
      of((o): o is Authorized => o.ok),
      reads,
    );
    const notAdmittedAborts: AbortedIntent[] = notAdmitted.map((x) => ({ authorized: x.authorized, reasonCode: x.reasonCode, detail: x.detail }));
    return { reads, fresh, redelivered, conflicts, refused, parked, admitted, notAdmittedAborts };
  }

  private async write(tx: Tx, input: PipelineInput, judged: Judged, savepointPerIntent: boolean, traces: DecisionTraces): Promise<BatchOutcome> {
    const { reads, fresh, redelivered, conflicts, refused, parked, admitted, notAdmittedAborts } = judged;
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

/** What policy and admission made of a slice, before anything is written. */
interface Judged {
  reads: SliceReads;
  fresh: Fresh[];
  redelivered: number;
  conflicts: OutboxRow[];
  refused: Refused[];
  parked: Parked[];
  admitted: Authorized[];
  notAdmittedAborts: AbortedIntent[];
}

/**
 * Whether the slice's writes can be its one insert statement: nothing to journal (a refusal, an
 * abort, a parked decision), no capability to revoke, no confirmation to reserve, no parked
 * decision to move on. The sink can still abort an intent; the OneStatementWriter catches that.
 */
const writesOneStatement = (j: Judged): boolean =>
  j.refused.length === 0 &&
  j.parked.length === 0 &&
  j.notAdmittedAborts.length === 0 &&
  j.admitted.every((a) => !a.confirmationId) &&
  j.fresh.every((f) => f.candidate.origin.kind !== 'resumed');

/** A candidate as policy takes it. */
const itemOf = (c: Candidate): AuthorizeItem => ({ decision: c.decision, identity: c.identity, stored: c.stored, resumed: c.origin.kind === 'resumed' });
