import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { commitment } from '@arvis/crypto';
import { appendJournal, decisionRefusalEntry } from '@arvis/journal';
import { ConfirmationStore, InboxStore } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { JournalRollbackGuard, PeriodicTask, ServiceRuntime } from '@arvis/runtime';
import type { Decision } from '../../policy/authorize-decision/authorization.types';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { DecisionPipeline } from '../../pipeline/decision-pipeline/decision-pipeline.service';
import { keptIdentity, type InboxRow } from '../../pipeline/decision-pipeline/kept-identity';
import type { Candidate } from '../../pipeline/decision-pipeline/pipeline.types';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';


/**
 * The worker behind confirmations (never the HTTP handler): parked decisions whose confirmation
 * was approved go through the whole path again with it (re-check of the kept identity, admission,
 * reservation by the new capability); denied and expired ones end in their one final refusal.
 */
@Injectable()
export class ResumeConfirmationsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(ResumeConfirmationsService.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly pipeline: DecisionPipeline,
    private readonly confirmations: ConfirmationStore,
    private readonly inbox: InboxStore,
    private readonly verifier: VerifyIdentityService,
    private readonly rollback: JournalRollbackGuard,
    runtime: ServiceRuntime,
  ) {
    // A decision on a confirmation, and its parking, commit a journal entry: the relay's NOTIFY
    // wakes the task, so it may slow down while idle; the next expiry is waited for by a timer
    // (ADR 0059). Not while the database is behind the journal topic (ADR 0055).
    const commits = runtime.outboxCommits;
    this.task = new PeriodicTask(
      'confirmation',
      config.confirmations.pollMs,
      () => (this.rollback.open ? this.pass() : Promise.resolve(false)),
      this.log,
      commits ? { maxMs: runtime.settings.relay.idlePollMaxMs, idle: (idle) => idle === true && commits.heard } : undefined,
    );
    commits?.on(() => this.task.poke());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** True when it found nothing to do (the idle back-off's judgement). */
  async pass(): Promise<boolean> {
    const resumed = await this.resumeApproved();
    const closed = await this.closeDeniedAndExpired();
    // The next pending confirmation's expiry, from the database's clock: a timer, not a poll.
    // (NULL without one: greatest() would turn it into 0, a pass every millisecond.)
    const [next] = await this.db.$queryRaw<{ wait_ms: number | null }[]>`
      SELECT ceil(extract(epoch FROM min(expires_at) - now()) * 1000)::float8 AS wait_ms
      FROM confirmations WHERE status = 'pending' AND resumed_at IS NULL`;
    if (typeof next?.wait_ms === 'number') this.task.runIn(Math.max(0, next.wait_ms) + 1);
    return resumed === 0 && closed === 0;
  }

  private async resumeApproved(): Promise<number> {
    const approved = await this.db.$queryRaw<(InboxRow & { confirmation_id: string })[]>`
      SELECT c.confirmation_id, di.body, di.identity_sha256, di.identity_claims FROM confirmations c JOIN decision_inbox di ON di.decision_id = c.decision_id AND di.tenant = c.tenant
      WHERE c.status = 'approved' AND c.resumed_at IS NULL AND di.status = 'parked' AND di.body IS NOT NULL
      ORDER BY c.decided_at LIMIT 100`;
    if (approved.length === 0) return 0;
    // The parked decision, with its kept identity claims re-checked by policy and admission (ADR 0035).
    const candidates: Candidate[] = await Promise.all(
      approved.map(async (a) => {
        const kept = await keptIdentity(a, this.verifier);
        const decision = { ...kept.decision, confirmationId: a.confirmation_id };
        return { ...kept, origin: { kind: 'resumed', confirmationId: a.confirmation_id }, decision, bodySha256: commitment(decision) };
      }),
    );
    const idOf = (c: Candidate) => (c.origin.kind === 'resumed' ? c.origin.confirmationId : '');
    let resumed = 0;
    await this.pipeline.run({
      candidates,
      deadLetters: [],
      // Rows another authorizer holds are skipped, not waited for.
      claim: async (tx) => {
        const mine = await this.confirmations.lockForResume(tx, candidates.map(idOf));
        return (c) => mine.has(idOf(c));
      },
      acknowledge: async (tx, handled) => {
        await this.confirmations.claimForResume(tx, handled.map(idOf));
        resumed = handled.length;
      },
    });
    if (resumed > 0) this.log.log({ msg: 'approved decisions resumed', count: resumed });
    return approved.length;
  }

  private async closeDeniedAndExpired(): Promise<number> {
    return this.db.tx(async (tx) => {
      // pending past its request TTL -> expired; denied -> closed. Each row is claimed once.
      const closing = await this.confirmations.expireAndCloseDenied(tx);
      if (closing.length === 0) return 0;
      await this.inbox.refuseParked(tx, closing);
      await appendJournal(
        tx,
        closing.map((c) => {
          const d = JSON.parse(c.body) as Decision;
          const code = c.status === 'denied' ? 'confirmation_denied' : 'confirmation_expired';
          return decisionRefusalEntry(
            'authorization_refusal',
            { decisionId: d.decisionId, runId: d.runId, causalId: d.causalId, tenant: c.tenant, principal: c.principal, tool: d.tool },
            { code, message: code === 'confirmation_denied' ? 'an approver denied the action' : 'no approver decided in time' },
          );
        }),
        this.config.topics.journal,
      );
      this.log.log({ msg: 'denied or expired confirmations closed', count: closing.length });
      return closing.length;
    });
  }
}
