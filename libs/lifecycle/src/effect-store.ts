import { Injectable } from '@nestjs/common';
import type { EffectBoundary, ReasonCode } from '@arvis/contracts';
import { expectMoved, type Sql } from './sql';

export interface ClaimedEffect {
  capabilityId: string;
  intentId: string;
  decisionId: string;
  idempotencyKey: string;
  /** The tool does not declare itself safe to repeat: one live effect per idempotency key. */
  holdsKey: boolean;
  /** Its intent's pool (ADR 0081): recovery and reconciliation of a pool read only its rows. */
  pool: string;
  /**
   * Set for the slice's first group: the claim is written effect_started at once, with this
   * deadline (the tool's timeout plus the recovery grace), as EffectStore.start would have moved it
   * right after the claim commits. Unset: effect_pending, started later with its group.
   */
  startDeadlineMs?: number;
}

/** A claim whose idempotency key another effect holds: it never runs its tool. */
export type DuplicateClaim =
  | {
      capabilityId: string;
      holderCapabilityId: string;
      holderDecisionId: string;
      /** Still in flight: the duplicate waits (effect_waiting) and is closed with the holder. */
      holderState: 'effect_pending' | 'effect_started' | 'effect_completed' | 'effect_state_unknown';
    }
  /** The holder closed without an effect between our two statements: stored effect_not_started. */
  | { capabilityId: string; holderCapabilityId: null; holderDecisionId: null; holderState: 'released' };

/** A duplicate closed along with its holder. */
export interface ClosedWaiter {
  capabilityId: string;
  holderCapabilityId: string;
  state: EffectBoundary;
}

const LIVE_STATES = ['effect_pending', 'effect_started', 'effect_completed', 'effect_state_unknown'];
// live_key after a move: kept by an outcome that goes on holding the key (effect_completed,
// effect_state_unknown), cleared by one that releases it; a CHECK refuses any other value (ADR 0048).
/** The holder's outcome a duplicate takes; any other outcome released the key without an effect. */
const SHARED_OUTCOMES: ReadonlySet<string> = new Set(['effect_completed', 'effect_state_unknown']);

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

/** A claim or started effect past its deadline, locked by recovery. */
export interface LostEffect {
  capabilityId: string;
  decisionId: string;
  /** effect_pending: its body never started; effect_started: it may have acted. */
  state: 'effect_pending' | 'effect_started';
  tool: string;
  idempotencyKey: string;
}

/**
 * The only writer of `effects`. A consumed capability gets a row `effect_pending` (claimed, no
 * body running); it becomes `effect_started` only when its body is about to start, with its
 * deadline set then; a result closes it. So a crash leaves unknown only the bodies in flight;
 * claims never started end `effect_not_started`, which proves nothing ran. Started effects past
 * their deadline are closed by recovery, after asking the tool when it can tell (reconciliation).
 */
@Injectable()
export class EffectStore {
  /**
   * Claims consumed capabilities (effect_pending, or effect_started for those given a start
   * deadline: the first group, whose start then commits with the claim). A claim whose key another live effect holds is
   * not inserted by the first statement; it is recorded as that effect's duplicate instead, after
   * locking the holder's row so the holder cannot close between our look and our insert.
   */
  async claim(tx: Sql, effects: readonly ClaimedEffect[], dispatcherId: string, pendingGraceMs: number): Promise<DuplicateClaim[]> {
    if (effects.length === 0) return [];
    const inserted = await tx.$queryRaw<{ capability_id: string }[]>`
      INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, live_key, state, dispatcher_id, claimed_at, started_at, deadline_at, pool)
      SELECT v.capability_id, v.intent_id, v.decision_id, v.idempotency_key, v.holds_key, CASE WHEN v.holds_key THEN v.idempotency_key END,
             CASE WHEN v.start_ms IS NULL THEN 'effect_pending' ELSE 'effect_started' END, ${dispatcherId}, now(),
             CASE WHEN v.start_ms IS NULL THEN NULL ELSE now() END,
             now() + make_interval(secs => coalesce(v.start_ms, ${pendingGraceMs}::float8) / 1000), v.pool
      FROM unnest(${effects.map((e) => e.capabilityId)}::text[], ${effects.map((e) => e.intentId)}::text[],
                  ${effects.map((e) => e.decisionId)}::text[], ${effects.map((e) => e.idempotencyKey)}::text[],
                  ${effects.map((e) => e.holdsKey)}::boolean[], ${effects.map((e) => e.startDeadlineMs ?? null)}::float8[],
                  ${effects.map((e) => e.pool)}::text[])
           AS v(capability_id, intent_id, decision_id, idempotency_key, holds_key, start_ms, pool)
      ON CONFLICT (live_key) WHERE live_key IS NOT NULL DO NOTHING
      RETURNING capability_id`;
    const done = new Set(inserted.map((r) => r.capability_id));
    const rest = effects.filter((e) => !done.has(e.capabilityId));
    if (rest.some((e) => !e.holdsKey)) throw new Error('an effect that holds no key was not claimed');
    return this.recordDuplicates(tx, rest, dispatcherId);
  }

  private async recordDuplicates(tx: Sql, duplicates: readonly ClaimedEffect[], dispatcherId: string): Promise<DuplicateClaim[]> {
    if (duplicates.length === 0) return [];
    const holders = await tx.$queryRaw<{ capability_id: string; decision_id: string; idempotency_key: string; state: 'effect_pending' | 'effect_started' | 'effect_completed' | 'effect_state_unknown' }[]>`
      SELECT capability_id, decision_id, idempotency_key, state FROM effects
      WHERE live_key = ANY(${duplicates.map((d) => d.idempotencyKey)}::text[]) AND state = ANY(${LIVE_STATES}::text[])
      ORDER BY capability_id FOR UPDATE`;
    const byKey = new Map(holders.map((h) => [h.idempotency_key, h]));
    const found = duplicates.filter((d) => byKey.has(d.idempotencyKey));
    // A holder that closed without an effect between the two statements: the key is free again,
    // but this claim lost its turn; it ends as not run and may be retried.
    const orphans = duplicates.filter((d) => !byKey.has(d.idempotencyKey));
    const rows = [
      ...found.map((d) => {
        const h = byKey.get(d.idempotencyKey)!;
        const shared = SHARED_OUTCOMES.has(h.state);
        return { d, holder: h.capability_id, state: shared ? h.state : 'effect_waiting', reason: shared ? 'deduplicated' : null };
      }),
      ...orphans.map((d) => ({ d, holder: null, state: 'effect_not_started', reason: 'idempotency_key_in_use' })),
    ];
    const moved = await tx.$executeRaw`
      INSERT INTO effects (capability_id, intent_id, decision_id, idempotency_key, holds_key, state, reason_code, waits_for, dispatcher_id, claimed_at, finished_at, pool)
      SELECT v.capability_id, v.intent_id, v.decision_id, v.idempotency_key, false, v.state, v.reason, v.holder, ${dispatcherId}, now(),
             CASE WHEN v.state = 'effect_waiting' THEN NULL ELSE now() END, v.pool
      FROM unnest(${rows.map((r) => r.d.capabilityId)}::text[], ${rows.map((r) => r.d.intentId)}::text[], ${rows.map((r) => r.d.decisionId)}::text[],
                  ${rows.map((r) => r.d.idempotencyKey)}::text[], ${rows.map((r) => r.state)}::text[], ${rows.map((r) => r.reason)}::text[],
                  ${rows.map((r) => r.holder)}::text[], ${rows.map((r) => r.d.pool)}::text[])
           AS v(capability_id, intent_id, decision_id, idempotency_key, state, reason, holder, pool)`;
    expectMoved('record duplicate claims', moved, rows.length);
    return [
      ...found.map((d): DuplicateClaim => {
        const h = byKey.get(d.idempotencyKey)!;
        return { capabilityId: d.capabilityId, holderCapabilityId: h.capability_id, holderDecisionId: h.decision_id, holderState: h.state };
      }),
      ...orphans.map((d): DuplicateClaim => ({ capabilityId: d.capabilityId, holderCapabilityId: null, holderDecisionId: null, holderState: 'released' })),
    ];
  }

  /**
   * Closes the duplicates waiting for these holders, in the holders' transaction: a completed or
   * unknown holder's outcome is theirs too; any other outcome means no effect happened, so they
   * end not run (idempotency_key_in_use) and may be retried. Only waiters of a holder whose row is
   * in the state given: a caller may issue this with the holders' own close, before knowing which
   * of them moved (ADR 0090), and a holder another closing moved first keeps its waiters for that
   * closing.
   */
  async closeWaiters(tx: Sql, holders: readonly { capabilityId: string; state: EffectBoundary }[]): Promise<ClosedWaiter[]> {
    if (holders.length === 0) return [];
    const rows = await tx.$queryRaw<{ capability_id: string; waits_for: string; state: EffectBoundary }[]>`
      UPDATE effects w
      SET state = CASE WHEN v.state IN ('effect_completed', 'effect_state_unknown') THEN v.state ELSE 'effect_not_started' END,
          reason_code = CASE WHEN v.state IN ('effect_completed', 'effect_state_unknown') THEN 'deduplicated' ELSE 'idempotency_key_in_use' END,
          finished_at = now()
      FROM unnest(${holders.map((h) => h.capabilityId)}::text[], ${holders.map((h) => h.state)}::text[]) AS v(capability_id, state)
      WHERE w.waits_for = v.capability_id AND w.state = 'effect_waiting'
        AND EXISTS (SELECT 1 FROM effects h WHERE h.capability_id = v.capability_id AND h.state = v.state)
      RETURNING w.capability_id, w.waits_for, w.state`;
    return rows.map((r) => ({ capabilityId: r.capability_id, holderCapabilityId: r.waits_for, state: r.state }));
  }

  /** Heartbeat of a live dispatcher: its claims not yet started stay claimed. */
  async extendPending(tx: Sql, capabilityIds: readonly string[], pendingGraceMs: number): Promise<number> {
    if (capabilityIds.length === 0) return 0;
    return tx.$executeRaw`
      UPDATE effects SET deadline_at = now() + make_interval(secs => ${pendingGraceMs}::float8 / 1000)
      WHERE capability_id = ANY(${[...capabilityIds]}::text[]) AND state = 'effect_pending'`;
  }

  /**
   * A started body's heartbeat (ADR 0077): its deadline moves to now + `deadlineMs` (the tool's
   * timeout plus the grace), never past its start + `capMs` (its maximum run time plus the grace),
   * and never back. False when the row is no longer started (recovery closed it, or it finished).
   */
  async heartbeat(tx: Sql, capabilityId: string, deadlineMs: number, capMs: number): Promise<boolean> {
    const moved = await tx.$executeRaw`
      UPDATE effects SET deadline_at = greatest(deadline_at, least(now() + make_interval(secs => ${deadlineMs}::float8 / 1000),
                                                                   started_at + make_interval(secs => ${capMs}::float8 / 1000)))
      WHERE capability_id = ${capabilityId} AND state = 'effect_started' AND finished_at IS NULL`;
    return moved === 1;
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
      UPDATE effects e SET state = v.state, reason_code = v.reason_code, finished_at = now(), live_key = CASE WHEN v.state IN ('effect_completed', 'effect_state_unknown') THEN e.live_key END
      FROM unnest(${results.map((r) => r.capabilityId)}::text[], ${results.map((r) => r.state)}::text[],
                  ${results.map((r) => r.reasonCode)}::text[]) AS v(capability_id, state, reason_code)
      WHERE e.capability_id = v.capability_id AND e.state = 'effect_started'
      RETURNING e.capability_id`;
    return new Set(finished.map((f) => f.capability_id));
  }

  /**
   * Recovery: locks claims and started effects past their deadline, whose dispatcher is gone (or
   * hung). Several dispatchers may run this at once: rows are taken SKIP LOCKED. They are found
   * through the index of open effects (finished_at IS NULL, by claim time), state and deadline read
   * from the row: neither is indexed, so the start and the heartbeat stay HOT updates (ADR 0048).
   * Only the rows of `pools`, the recovering dispatcher's (ADR 0081): another pool's lost effect
   * is its own pool's to reconcile, with the tool only that pool loads.
   */
  async lockLost(tx: Sql, limit: number, pools: readonly string[]): Promise<LostEffect[]> {
    const rows = await tx.$queryRaw<{ capability_id: string; decision_id: string; state: LostEffect['state']; tool: string; idempotency_key: string }[]>`
      SELECT e.capability_id, e.decision_id, e.state, i.tool, i.idempotency_key
      FROM effects e JOIN intents i ON i.intent_id = e.intent_id
      WHERE e.finished_at IS NULL AND e.state IN ('effect_pending', 'effect_started') AND e.deadline_at < now() AND e.pool = ANY(${[...pools]}::text[])
      ORDER BY e.claimed_at LIMIT ${limit} FOR UPDATE OF e SKIP LOCKED`;
    return rows.map((r) => ({ capabilityId: r.capability_id, decisionId: r.decision_id, state: r.state, tool: r.tool, idempotencyKey: r.idempotency_key }));
  }

  /** Closes locked lost effects with the outcome recovery settled on for each. */
  async closeLost(tx: Sql, closed: readonly FinishedEffect[]): Promise<void> {
    if (closed.length === 0) return;
    const moved = await tx.$executeRaw`
      UPDATE effects e SET state = v.state, reason_code = v.reason_code, finished_at = now(), live_key = CASE WHEN v.state IN ('effect_completed', 'effect_state_unknown') THEN e.live_key END
      FROM unnest(${closed.map((c) => c.capabilityId)}::text[], ${closed.map((c) => c.state)}::text[],
                  ${closed.map((c) => c.reasonCode)}::text[]) AS v(capability_id, state, reason_code)
      WHERE e.capability_id = v.capability_id AND e.state IN ('effect_pending', 'effect_started')`;
    expectMoved('close lost effects', moved, closed.length);
  }

  /**
   * A body's result that came after its effect was closed unknown, by its timeout or by recovery
   * (ADR 0056): kept on the row, once, except that a late timeout gives way to the body's
   * settlement. A body whose effect ended otherwise (recovery fenced it, or reconciled it) moves
   * nothing. Returns the ids recorded, to be journaled (non-final). Off the hot path.
   */
  async recordLate(tx: Sql, results: readonly FinishedEffect[]): Promise<Set<string>> {
    if (results.length === 0) return new Set();
    const rows = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE effects e SET late_state = v.state, late_reason_code = v.reason_code, late_at = now()
      FROM unnest(${results.map((r) => r.capabilityId)}::text[], ${results.map((r) => r.state)}::text[],
                  ${results.map((r) => r.reasonCode)}::text[]) AS v(capability_id, state, reason_code)
      WHERE e.capability_id = v.capability_id AND e.reason_code IN ('tool_timeout', 'dispatcher_lost_during_effect') AND e.waits_for IS NULL
        AND (e.late_at IS NULL OR e.late_reason_code = 'tool_timeout')
      RETURNING e.capability_id`;
    return new Set(rows.map((r) => r.capability_id));
  }

  /** Results that could not be journaled: the classified state is kept so recovery leaves them alone. */
  async finishAuditIncomplete(tx: Sql, results: readonly FinishedEffect[]): Promise<number> {
    return (await this.finish(tx, results.map((r) => ({ ...r, reasonCode: 'audit_incomplete' as const })))).size;
  }

  /**
   * An operator's resolution of an effect that ended effect_state_unknown (ADR 0036): one
   * conditional UPDATE moves the row to the outcome they found outside (effect_completed, or
   * effect_not_started, which frees its idempotency key for a new decision), at most once, only
   * for the effect that ran (not a duplicate that took its outcome) and only within the
   * operator's tenant. Returns the decision's facts for the journal, or null when nothing moved.
   */
  async resolveUnknown(tx: Sql, r: UnknownResolution): Promise<ResolvedEffect | null> {
    const rows = await tx.$queryRaw<ResolvedEffectRow[]>`
      UPDATE effects e SET state = ${r.outcome}, resolved_at = now(), resolved_by_issuer = ${r.issuer}, resolved_by = ${r.subject},
                           resolution_note = ${r.note}, live_key = CASE WHEN ${r.outcome}::text = 'effect_completed' THEN e.live_key END
      FROM intents i
      WHERE e.decision_id = ${r.decisionId} AND e.state = 'effect_state_unknown' AND e.resolved_at IS NULL AND e.waits_for IS NULL
        AND i.capability_id = e.capability_id AND i.tenant = ${r.tenant}
        AND (${r.outcome}::text = 'effect_completed'
             OR (((e.late_at IS NOT NULL AND e.late_reason_code IS DISTINCT FROM 'tool_timeout') OR coalesce(e.deadline_at + make_interval(secs => ${r.maxOverrunMs}::float8 / 1000) <= now(), true))
                 AND e.late_state IS DISTINCT FROM 'effect_completed'))
      RETURNING i.decision_id, i.run_id, i.causal_id, i.tenant, i.principal, i.tool, i.capability_id, i.intent_commitment, i.idempotency_key`;
    if (rows.length > 1) throw new Error(`resolve unknown effect of ${r.decisionId}: moved ${rows.length} rows, expected at most 1`);
    const row = rows[0];
    if (!row) return null;
    return {
      decisionId: row.decision_id,
      runId: row.run_id,
      causalId: row.causal_id,
      tenant: row.tenant,
      principal: row.principal,
      tool: row.tool,
      capabilityId: row.capability_id,
      intentCommitment: row.intent_commitment,
      idempotencyKey: row.idempotency_key,
    };
  }

  /**
   * Why resolveUnknown moved nothing, from the row as it is now (null: no effect for this
   * decision). `mayRunUntil`: while the body may still run, when that ends at the latest. Ids are
   * the tenant's own (ADR 0061): the operator's tenant's decision with this id is the one described.
   */
  async unknownEffectState(tx: Sql, decisionId: string, maxOverrunMs: number, tenant: string): Promise<UnknownEffectState | null> {
    const rows = await tx.$queryRaw<{ state: string; tenant: string; resolved: boolean; waits_for: string | null; late_state: string | null; may_run: boolean; may_run_until: Date | null }[]>`
      SELECT e.state, i.tenant, e.resolved_at IS NOT NULL AS resolved, e.waits_for, e.late_state,
             NOT ((e.late_at IS NOT NULL AND e.late_reason_code IS DISTINCT FROM 'tool_timeout') OR coalesce(e.deadline_at + make_interval(secs => ${maxOverrunMs}::float8 / 1000) <= now(), true)) AS may_run, e.deadline_at + make_interval(secs => ${maxOverrunMs}::float8 / 1000) AS may_run_until
      FROM effects e JOIN intents i ON i.capability_id = e.capability_id WHERE e.decision_id = ${decisionId}
      ORDER BY i.tenant = ${tenant} DESC LIMIT 1`;
    const row = rows[0];
    if (!row) return null;
    return {
      state: row.state,
      tenant: row.tenant,
      resolved: row.resolved,
      waitsFor: row.waits_for,
      lateState: row.late_state,
      mayRunUntil: row.may_run ? row.may_run_until : null,
    };
  }
}

// A body can no longer run (ADR 0056) once it settled (a late result that is not a timeout), or
// once its deadline (start + the tool's timeout + the recovery grace) plus the longest a body may
// overrun its abort (EFFECT_MAX_OVERRUN_MS) has passed: the condition both statements below spell.

export interface UnknownEffectState {
  state: string;
  tenant: string;
  resolved: boolean;
  waitsFor: string | null;
  /** The boundary of the body's late result, if one came. */
  lateState: string | null;
  /** Set while the body may still run: the latest it may. */
  mayRunUntil: Date | null;
}

/** What an operator found about an unknown effect, and who they are. */
export interface UnknownResolution {
  decisionId: string;
  outcome: 'effect_completed' | 'effect_not_started';
  /** EFFECT_MAX_OVERRUN_MS: how long past its deadline a body may still run. */
  maxOverrunMs: number;
  issuer: string;
  subject: string;
  tenant: string;
  note: string;
}

/** The resolved decision's facts, as its journal entries name them. */
export interface ResolvedEffect {
  decisionId: string;
  runId: string;
  causalId: string;
  tenant: string;
  principal: string;
  tool: string;
  capabilityId: string;
  intentCommitment: string;
  idempotencyKey: string;
}

interface ResolvedEffectRow {
  decision_id: string;
  run_id: string;
  causal_id: string;
  tenant: string;
  principal: string;
  tool: string;
  capability_id: string;
  intent_commitment: string;
  idempotency_key: string;
}
