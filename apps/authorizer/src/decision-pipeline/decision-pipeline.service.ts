import { Injectable, Logger } from '@nestjs/common';
import { PrismaService, type Tx } from '@arvis/persistence';
import { Tracing } from '@arvis/tracing';
import { AdmitDecisionService } from '../admit-decision/admit-decision.service';
import { AuthorizeDecisionService } from '../authorize-decision/authorize-decision.service';
import type { Authorization, Authorized, Parked, Refused } from '../authorize-decision/authorization.types';
import { CommitIntentService, IntentSinkError, type AbortedIntent } from '../commit-intent/commit-intent.service';
import { JournalOutcomesStep } from '../journal-outcomes/journal-outcomes.step';
import { ParkDecisionStep } from '../park-decision/park-decision.step';
import { RecordInboxStep, type Fresh } from '../record-inbox/record-inbox.step';
import { DecisionTraces } from './decision-traces';
import type { BatchOutcome, PipelineInput } from './pipeline.types';

/**
 * The one path every decision takes, whoever hands it in (the decisions consumer, the resume
 * worker, the retry worker), in named steps:
 *   authorize-decision (policy, outside the transaction), then in one transaction:
 *   record-inbox (sort) → admit-decision → commit-intent → park-decision → record-inbox (write)
 *   → journal-outcomes → the source's acknowledgement.
 * Offsets (for the consumer) are committed only after this resolves (ADR 0001).
 */
@Injectable()
export class DecisionPipeline {
  private readonly log = new Logger(DecisionPipeline.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly authorizer: AuthorizeDecisionService,
    private readonly inbox: RecordInboxStep,
    private readonly admission: AdmitDecisionService,
    private readonly intents: CommitIntentService,
    private readonly parking: ParkDecisionStep,
    private readonly journal: JournalOutcomesStep,
    private readonly tracing: Tracing,
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
    const outcomes = await this.authorizer.authorizeAll(
      input.candidates.map((c) => ({ decision: c.decision, identity: c.identity, stored: c.stored, resumed: c.origin.kind === 'resumed' })),
    );
    const attempt = (savepointPerIntent: boolean) =>
      this.prisma
        .tx(async (tx) => {
          const mine = input.claim ? await input.claim(tx) : () => true;
          const keep = input.candidates.map(mine);
          const own = { ...input, candidates: input.candidates.filter((_, i) => keep[i]) };
          const result = await this.inTransaction(tx, own, outcomes.filter((_, i) => keep[i]), savepointPerIntent, traces);
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
      this.log.warn(`${e.message}; retrying the slice intent by intent`);
      return attempt(true);
    }
  }

  private async inTransaction(tx: Tx, input: PipelineInput, outcomes: Authorization[], savepointPerIntent: boolean, traces: DecisionTraces): Promise<BatchOutcome> {
    // The record's time is the database's: journal entries' recordedAt, the receipt's committedAt.
    const [{ now }] = await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
    const { fresh, redelivered, conflicts } = await this.inbox.sort(tx, input.candidates, outcomes);
    const of = <T extends Authorization>(keep: (o: Authorization) => o is T) => fresh.map((f) => f.outcome).filter(keep);
    const authorized = of((o): o is Authorized => o.ok);
    const refused = of((o): o is Refused => !o.ok && !o.parked);
    const parked = of((o): o is Parked => !o.ok && o.parked === true);

    const { admitted, refused: notAdmitted } = await this.admission.admit(tx, authorized, now);
    const notAdmittedAborts: AbortedIntent[] = notAdmitted.map((x) => ({ authorized: x.authorized, reasonCode: x.reasonCode, detail: x.detail }));
    await this.intents.revokeWithoutIntent(tx, notAdmittedAborts);
    traces.startCommits(admitted.map((a) => a.decision.decisionId));
    const { aborted: sinkAborts } = await this.intents.commit(tx, admitted, now, savepointPerIntent, traces.traceOf);
    const aborted = [...notAdmittedAborts, ...sinkAborts];
    await this.parking.park(tx, parked);

    const abortedIds = new Set(aborted.map((x) => x.authorized.decision.decisionId));
    const statusOf = (f: Fresh) =>
      f.outcome.ok ? (abortedIds.has(f.candidate.decision.decisionId) ? 'refused' : 'authorized') : f.outcome.parked ? 'parked' : 'refused';
    await this.inbox.write(tx, fresh, statusOf);
    const deadLetters = [...input.deadLetters, ...conflicts];
    await this.journal.record(tx, { refused, aborted, parked, deadLetters }, traces.traceOf);
    return {
      authorized: admitted.length - sinkAborts.length,
      refused: refused.length + aborted.length,
      parked: parked.length,
      redelivered,
      deadLettered: deadLetters.length,
    };
  }
}
