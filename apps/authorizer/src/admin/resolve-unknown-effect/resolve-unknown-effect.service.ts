import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { appendJournal, effectResolvedEntry } from '@arvis/journal';
import { EffectStore, type ResolvedEffect } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';

/**
 * What the operator found after checking the outside world (the bank, the mail provider, the
 * tool's own records): the effect happened, or it did not. A note saying how they know is required.
 */
export const ResolveBody = z.strictObject({
  outcome: z.enum(['completed', 'not_happened']),
  note: z.string().trim().min(1, 'say how you know').max(2000),
});
export type ResolveBody = z.infer<typeof ResolveBody>;

export const BOUNDARY_OF = { completed: 'effect_completed', not_happened: 'effect_not_started' } as const;

export interface Resolved {
  decisionId: string;
  effectBoundary: 'effect_completed' | 'effect_not_started';
  journalSeq: string;
  /** The resolution entry's chain, the decision's run's (ADR 0062). */
  journalChain: string;
}

/**
 * Resolves a decision that ended effect_state_unknown (ADR 0036). "Not happened" frees the key, so
 * it is refused while the body may still run, and for good once its late result says it acted
 * (ADR 0056). Its final entry stays (one final
 * entry per decision); the resolution is a non-final operator_action entry of that decision, after
 * it, carrying the true outcome, written in the transaction that moves the effects row once.
 */
@Injectable()
export class ResolveUnknownEffectService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly effects: EffectStore,
  ) {}

  async resolve(operator: Operator, decisionId: string, body: ResolveBody): Promise<AdminOutcome<Resolved>> {
    const outcome = BOUNDARY_OF[body.outcome];
    const done = await this.db.tx(async (tx) => {
      const resolved: ResolvedEffect | null = await this.effects.resolveUnknown(tx, {
        decisionId,
        outcome,
        ...operator,
        note: body.note,
        maxOverrunMs: this.config.effectMaxOverrunMs,
      });
      if (!resolved) return null;
      const [entry] = await appendJournal(
        tx,
        [effectResolvedEntry(resolved, outcome, { issuer: operator.issuer, subject: operator.subject }, body.note)],
        this.config.topics.journal,
      );
      return { journalSeq: entry.journalSeq, journalChain: entry.chain };
    });
    if (done !== null) return { ok: true, body: { decisionId, effectBoundary: outcome, ...done } };
    return { ok: false, ...(await this.whyNot(operator, decisionId)) };
  }

  private async whyNot(operator: Operator, decisionId: string) {
    const row = await this.effects.unknownEffectState(this.db, decisionId, this.config.effectMaxOverrunMs, operator.tenant);
    if (!row) return refusal(HttpStatus.NOT_FOUND, 'not_found', 'no effect for this decision');
    if (row.tenant !== operator.tenant) return refusal(HttpStatus.FORBIDDEN, 'other_tenant', 'the decision belongs to another tenant');
    if (row.resolved) return refusal(HttpStatus.CONFLICT, 'already_resolved', 'an operator already resolved this effect');
    if (row.waitsFor !== null) {
      return refusal(HttpStatus.CONFLICT, 'deduplicated', `this decision took the outcome of the effect of capability ${row.waitsFor}: resolve that decision`);
    }
    if (row.state !== 'effect_state_unknown') return refusal(HttpStatus.CONFLICT, 'not_unknown', `the effect is ${row.state}, not effect_state_unknown`);
    // Only "not happened" is ever refused below: "completed" cannot start a second effect.
    if (row.lateState === 'effect_completed') {
      return refusal(HttpStatus.CONFLICT, 'late_result_completed', 'the body\'s late result says it completed (a late_tool_result entry): it happened');
    }
    if (row.mayRunUntil) {
      return refusal(
        HttpStatus.CONFLICT,
        'effect_may_still_run',
        `the body may still run (until it reports, or at the latest ${row.mayRunUntil.toISOString()}); its idempotency key stays held until then`,
      );
    }
    return refusal(HttpStatus.CONFLICT, 'not_unknown', `the effect is ${row.state}, not effect_state_unknown`);
  }
}
