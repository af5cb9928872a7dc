import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { commitment } from '@arvis/crypto';
import { RetryStore } from '@arvis/lifecycle';
import { Database, type Tx } from '@arvis/persistence';
import { JournalRollbackGuard, PeriodicTask, ServiceRuntime } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { DecisionPipeline } from '../../pipeline/decision-pipeline/decision-pipeline.service';
import { keptIdentity } from '../../pipeline/decision-pipeline/kept-identity';
import { scopedKey, type Candidate } from '../../pipeline/decision-pipeline/pipeline.types';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';

interface PendingRetry {
  decision_id: string;
  tenant: string;
  chain_id: string;
  attempt: number;
  parent_causal_id: string;
  body: string | null;
  identity_sha256: string | null;
  identity_claims: unknown;
}

/**
 * Turns retry rows (written by the dispatcher next to a failed result) into new decisions that go
 * through the whole path again, inside this process (never back through the decisions topic): a
 * re-check of the parent's kept identity claims (ADR 0035: no token is kept to verify again),
 * fresh policy, a fresh capability, the same idempotency key. The decision is the parent as
 * received (without its token), with a new decisionId (derived by the dispatcher:
 * `arvis.retry.<hex>.<attempt>`), a new causalId and the retry block.
 */
@Injectable()
export class SubmitRetriesService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(SubmitRetriesService.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly pipeline: DecisionPipeline,
    private readonly retries: RetryStore,
    private readonly verifier: VerifyIdentityService,
    private readonly rollback: JournalRollbackGuard,
    runtime: ServiceRuntime,
  ) {
    // A retry row is written with the failed result's journal entry: the relay's NOTIFY wakes the
    // task, so it may slow down while idle; a row's not-before is waited for by a timer (ADR 0059).
    // Not while the database is behind the journal topic (ADR 0055).
    const commits = runtime.outboxCommits;
    this.task = new PeriodicTask(
      'retry submission',
      config.retryPollMs,
      () => (this.rollback.open ? this.pass() : Promise.resolve(-1)),
      this.log,
      commits ? { maxMs: runtime.settings.relay.idlePollMaxMs, idle: (n) => n === 0 && commits.heard } : undefined,
    );
    commits?.on(() => this.task.poke());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  async pass(): Promise<number> {
    // Due rows first (not-before order, database time); the first row not yet due tells when to
    // wake (ADR 0076): a timer, not a faster poll.
    const rows = await this.db.$queryRaw<(PendingRetry & { wait_ms: number })[]>`
      SELECT r.decision_id, r.tenant, r.chain_id, r.attempt, r.parent_causal_id, di.body, di.identity_sha256, di.identity_claims,
             greatest(0, ceil(extract(epoch FROM r.not_before - now()) * 1000))::float8 AS wait_ms
      FROM retries r JOIN decision_inbox di ON di.decision_id = r.parent_decision_id AND di.tenant = r.tenant
      WHERE r.status = 'pending' ORDER BY r.not_before, r.created_at LIMIT 100`;
    const pending = rows.filter((r) => r.wait_ms === 0);
    const next = rows.find((r) => r.wait_ms > 0);
    if (next) this.task.runIn(next.wait_ms);
    if (pending.length === 0) return 0;
    // The row's tenant, the parent's: what the retry's id is unique within (ADR 0061).
    const tenantOfRow = new WeakMap<Candidate, string>();
    const tenantOf = (c: Candidate) => tenantOfRow.get(c)!;
    const candidates: Candidate[] = await Promise.all(
      pending
        .filter((p) => p.body !== null)
        .map(async (p) => {
          const kept = await keptIdentity({ ...p, body: p.body! }, this.verifier);
          const decision = {
            ...kept.decision,
            decisionId: p.decision_id,
            causalId: retryCausalId(p.parent_causal_id, p.attempt),
            retry: { attempt: p.attempt, chainId: p.chain_id, parentCausalId: p.parent_causal_id },
          };
          const candidate: Candidate = { ...kept, origin: { kind: 'retry' }, decision, bodySha256: commitment(decision) };
          tenantOfRow.set(candidate, p.tenant);
          return candidate;
        }),
    );
    // Rows another authorizer holds are skipped, not waited for; they are that worker's to submit.
    // A retry's id is unique within its tenant (ADR 0061).
    const claim = async (tx: Tx) => {
      const locked = await this.retries.lockDue(tx, candidates.map((c) => ({ decisionId: c.decision.decisionId, tenant: tenantOf(c) })));
      const mine = new Set(locked.map((r) => scopedKey(r.tenant, r.decisionId)));
      return (c: Candidate) => mine.has(scopedKey(tenantOf(c), c.decision.decisionId));
    };
    let submitted = 0;
    const acknowledge = async (tx: Tx, handled: Candidate[]) => {
      await this.retries.markSubmitted(tx, handled.map((c) => ({ decisionId: c.decision.decisionId, tenant: tenantOf(c) })));
      submitted = handled.length;
    };
    await this.pipeline.run({ candidates, deadLetters: [], claim, acknowledge });
    if (submitted > 0) this.log.log({ msg: 'retry decisions submitted', count: submitted });
    return submitted;
  }
}

/** `<parent causalId>:retry:<n>`, the parent's part cut so that the whole stays within 200 characters. */
export function retryCausalId(parentCausalId: string, attempt: number): string {
  const suffix = `:retry:${attempt}`;
  let head = parentCausalId;
  // Cut by code point, never inside a surrogate pair; the limit counts UTF-16 units.
  while (head.length + suffix.length > 200) head = [...head].slice(0, -1).join('');
  return head + suffix;
}
