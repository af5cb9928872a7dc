import { Injectable } from '@nestjs/common';
import type { EffectBoundary, ReasonCode } from '@arvis/contracts';
import { expectMoved, type Sql } from './sql';

export interface ClaimedEffect {
  capabilityId: string;
  intentId: string;
  decisionId: string;
  idempotencyKey: string;
}

export interface EffectToStart {
  capabilityId: string;
  /** The tool's timeout plus the recovery grace: past it, a started effect without a result is unknown. */
  deadlineMs: number;
}

export interface FinishedEffect {
  capabilityId: string;
  state: EffectBoundary;
  reasonCode: ReasonCode | null;
}

/** A row recovery closed: what its final entry needs to name. */
export interface LostEffect {
  capabilityId: string;
  decisionId: string;
  state: 'effect_not_started' | 'effect_state_unknown';
  reasonCode: 'dispatcher_lost_before_effect' | 'dispatcher_lost_during_effect';
}

/**
 * The only writer of `effects`. A consumed capability gets a row `effect_pending` (claimed, no
 * body running); it becomes `effect_started` only when its body is about to start, with its
 * deadline set then; a result closes it. So a crash leaves unknown only the bodies in flight;
 * claims never started end `effect_not_started`, which proves nothing ran.
 */
@Injectable()
export class EffectStore {
  async claim(tx: Sql, effects: readonly ClaimedEffect[], dispatcherId: string, pendingGraceMs: number): Promise<void> {
    if (effects.length === 0) return;
    const inserted = await tx.$executeRaw`
      INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, state, dispatcher_id, claimed_at, deadline_at)
      SELECT v.capability_id, v.intent_id, v.decision_id, v.idempotency_key, 'effect_pending', ${dispatcherId}, now(),
             now() + make_interval(secs => ${pendingGraceMs}::float8 / 1000)
      FROM unnest(${effects.map((e) => e.capabilityId)}::text[], ${effects.map((e) => e.intentId)}::text[],
                  ${effects.map((e) => e.decisionId)}::text[], ${effects.map((e) => e.idempotencyKey)}::text[])
           AS v(capability_id, intent_id, decision_id, idempotency_key)`;
    expectMoved('claim effects', inserted, effects.length);
  }

  /** Heartbeat of a live dispatcher: its claims not yet started stay claimed. */
  async extendPending(tx: Sql, capabilityIds: readonly string[], pendingGraceMs: number): Promise<number> {
    if (capabilityIds.length === 0) return 0;
    return tx.$executeRaw`
      UPDATE effects SET deadline_at = now() + make_interval(secs => ${pendingGraceMs}::float8 / 1000)
      WHERE capability_id = ANY(${[...capabilityIds]}::text[]) AND state = 'effect_pending'`;
  }

  /**
   * effect_pending -> effect_started for bodies about to start, as one statement. Returns the ids
   * that moved: a claim recovery already closed is not among them, and its body must not run.
   */
  async start(tx: Sql, effects: readonly EffectToStart[]): Promise<Set<string>> {
    if (effects.length === 0) return new Set();
    const started = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE effects e SET state = 'effect_started', started_at = now(),
             deadline_at = now() + make_interval(secs => v.deadline_ms / 1000.0)
      FROM unnest(${effects.map((e) => e.capabilityId)}::text[], ${effects.map((e) => e.deadlineMs)}::int[]) AS v(capability_id, deadline_ms)
      WHERE e.capability_id = v.capability_id AND e.state = 'effect_pending'
      RETURNING e.capability_id`;
    return new Set(started.map((s) => s.capability_id));
  }

  /**
   * Closes started effects with their classified results. Only rows still effect_started move:
   * recovery may already have called a slow one unknown and journaled it; that entry stands.
   */
  async finish(tx: Sql, results: readonly FinishedEffect[]): Promise<Set<string>> {
    if (results.length === 0) return new Set();
    const finished = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE effects e SET state = v.state, reason_code = v.reason_code, finished_at = now()
      FROM unnest(${results.map((r) => r.capabilityId)}::text[], ${results.map((r) => r.state)}::text[],
                  ${results.map((r) => r.reasonCode)}::text[]) AS v(capability_id, state, reason_code)
      WHERE e.capability_id = v.capability_id AND e.state = 'effect_started'
      RETURNING e.capability_id`;
    return new Set(finished.map((f) => f.capability_id));
  }

  /**
   * Recovery: claims and started effects past their deadline whose dispatcher is gone (or hung).
   * A claim never started ends effect_not_started; a started one effect_state_unknown, since the
   * tool may have acted. Several dispatchers may run this at once: rows are claimed SKIP LOCKED.
   */
  async closeLost(tx: Sql, limit: number): Promise<LostEffect[]> {
    const rows = await tx.$queryRaw<{ capability_id: string; decision_id: string; state: LostEffect['state']; reason_code: LostEffect['reasonCode'] }[]>`
      WITH lost AS (
        SELECT capability_id FROM effects
        WHERE state IN ('effect_pending', 'effect_started') AND deadline_at < now()
        ORDER BY deadline_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE effects e
      SET state = CASE e.state WHEN 'effect_pending' THEN 'effect_not_started' ELSE 'effect_state_unknown' END,
          reason_code = CASE e.state WHEN 'effect_pending' THEN 'dispatcher_lost_before_effect' ELSE 'dispatcher_lost_during_effect' END,
          finished_at = now()
      FROM lost x
      WHERE e.capability_id = x.capability_id AND e.state IN ('effect_pending', 'effect_started')
      RETURNING e.capability_id, e.decision_id, e.state, e.reason_code`;
    return rows.map((r) => ({ capabilityId: r.capability_id, decisionId: r.decision_id, state: r.state, reasonCode: r.reason_code }));
  }

  /** Results that could not be journaled: the classified state is kept so recovery leaves them alone. */
  async finishAuditIncomplete(tx: Sql, results: readonly FinishedEffect[]): Promise<number> {
    return (await this.finish(tx, results.map((r) => ({ ...r, reasonCode: 'audit_incomplete' as const })))).size;
  }
}
