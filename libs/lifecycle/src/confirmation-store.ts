import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EffectBoundary } from '@arvis/contracts';
import { Database, type Tx } from '@arvis/persistence';
import type { Sql } from './sql';

/** Only these prove the effect did not start; every other state spends the confirmation. */
export const RELEASING_STATES: ReadonlySet<EffectBoundary> = new Set(['pre_effect_refusal', 'effect_not_started']);

/** A decision parked for a human confirmation, bound to exactly this action. */
export interface ParkRequest {
  decisionId: string;
  tenant: string;
  principal: string;
  /** The requester token's issuer, shown to approvers. */
  issuer: string;
  /** The requester's cross-issuer person key (their issuer's `claims.person`), if any (ADR 0035). */
  person?: string | null;
  tool: string;
  payloadSha256: string;
}

/** An approved confirmation a new capability wants to reserve, for exactly this action. */
export interface ReserveRequest {
  confirmationId: string;
  capabilityId: string;
  tool: string;
  payloadSha256: string;
  principal: string;
  tenant: string;
  /** The principal is (issuer, subject): a row that kept its issuer is reserved only by the same one. */
  issuer?: string;
}

export interface Approver {
  tenant: string;
  principal: string;
  issuer: string;
  /** Their cross-issuer person key, if their issuer maps one (ADR 0035). */
  person?: string | null;
}

/** A confirmation an approver just decided, with what its journal entry names. */
export interface DecidedConfirmation {
  confirmationId: string;
  decisionId: string;
  /** From the parked decision's inbox row; null only if that row is missing (a fault for the caller). */
  runId: string | null;
  causalId: string | null;
  tenant: string;
  principal: string;
  tool: string;
}

/** A confirmation closed by the worker: denied, or expired just now. */
export interface ClosedConfirmation {
  decisionId: string;
  status: 'denied' | 'expired';
  tenant: string;
  principal: string;
  /** The parked decision's body (from the inbox). */
  body: string;
  /** The database's time of the closing transaction. */
  closedAt: Date;
}

/** The confirmation presented could not be reserved (raced, expired, changed): an expected refusal. */
export class ConfirmationNotReservable extends Error {
  constructor(readonly confirmationIds: string[]) {
    super(`confirmation ${confirmationIds.join(', ')} could not be reserved`);
    this.name = 'ConfirmationNotReservable';
  }
}

/**
 * Every write to `confirmations`. Each transition is one set-based SQL statement guarded by the
 * state it leaves, and its row count is checked: a count the caller cannot explain is a fault.
 * Times are the database's (`now()`).
 *
 * pending --approve--> approved --reserve--> reserved (the dispatcher releases or consumes it)
 * pending --deny--> denied --close--> (resumed_at set)   pending --expire--> expired
 * approved/reserved --claimForResume--> (resumed_at set: the worker carries the decision on)
 */
@Injectable()
export class ConfirmationStore {
  constructor(private readonly db: Database) {}

  /** One pending confirmation per parked decision, expiring after the request TTL. */
  async park(tx: Tx, parked: ParkRequest[], requestTtlMs: number): Promise<void> {
    if (parked.length === 0) return;
    const inserted = await tx.$executeRaw`
      INSERT INTO confirmations (confirmation_id, decision_id, tenant, principal, issuer, requester_person, tool, payload_sha256, status, expires_at)
      SELECT v.id, v.decision_id, v.tenant, v.principal, v.issuer, v.person, v.tool, v.payload_sha256, 'pending', now() + make_interval(secs => ${requestTtlMs}::float8 / 1000)
      FROM unnest(${parked.map(() => randomUUID())}::text[], ${parked.map((p) => p.decisionId)}::text[],
                  ${parked.map((p) => p.tenant)}::text[], ${parked.map((p) => p.principal)}::text[], ${parked.map((p) => p.issuer)}::text[],
                  ${parked.map((p) => p.person ?? null)}::text[], ${parked.map((p) => p.tool)}::text[], ${parked.map((p) => p.payloadSha256)}::text[])
           AS v(id, decision_id, tenant, principal, issuer, person, tool, payload_sha256)`;
    if (inserted !== parked.length) throw new Error(`parked ${inserted} of ${parked.length} decisions`);
  }

  /**
   * pending -> approved, with a grant, by an approver of the same tenant who is not the requester,
   * before the request expired; null (an expected outcome) when any of that does not hold. Runs
   * in the caller's transaction, so the verdict's journal entry commits with it.
   *
   * "Not the requester" (ADR 0035): principals are (issuer, subject), so the same issuer and
   * subject is the requester. An approver of another issuer is accepted only when both issuers
   * map a person key and the keys differ: a second issuer cannot be told from the same person
   * otherwise. The same person key is the requester whatever the issuers. Rows parked before the
   * issuer was kept compare the subject alone, as before.
   */
  approve(confirmationId: string, approver: Approver, grantTtlMs: number, tx: Sql = this.db): Promise<DecidedConfirmation | null> {
    return this.decide(tx, confirmationId, approver, 'approved', grantTtlMs);
  }

  /** pending -> denied, on the same conditions as approve. */
  deny(confirmationId: string, approver: Approver, tx: Sql = this.db): Promise<DecidedConfirmation | null> {
    return this.decide(tx, confirmationId, approver, 'denied', null);
  }

  /** One statement: the guarded UPDATE, returning the row with its decision's run and causal ids. */
  private async decide(tx: Sql, confirmationId: string, approver: Approver, to: 'approved' | 'denied', grantTtlMs: number | null) {
    const rows = await tx.$queryRaw<DecidedConfirmation[]>`
      WITH moved AS (
        UPDATE confirmations SET status = ${to}, decided_at = now(), decided_by = ${approver.principal}, decided_by_issuer = ${approver.issuer},
               grant_expires_at = CASE WHEN ${grantTtlMs}::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => ${grantTtlMs}::float8 / 1000) END
        WHERE confirmation_id = ${confirmationId} AND status = 'pending' AND expires_at > now()
          AND tenant = ${approver.tenant}
          AND NOT (principal = ${approver.principal} AND (issuer IS NULL OR issuer = ${approver.issuer}))
          AND (issuer IS NULL OR issuer = ${approver.issuer}
               OR (requester_person IS NOT NULL AND ${approver.person ?? null}::text IS NOT NULL AND requester_person <> ${approver.person ?? null}::text))
          AND (requester_person IS NULL OR ${approver.person ?? null}::text IS NULL OR requester_person <> ${approver.person ?? null}::text)
        RETURNING confirmation_id, decision_id, tenant, principal, tool)
      SELECT m.confirmation_id AS "confirmationId", m.decision_id AS "decisionId", di.run_id AS "runId", di.causal_id AS "causalId",
             m.tenant, m.principal, m.tool
      FROM moved m LEFT JOIN decision_inbox di ON di.decision_id = m.decision_id AND di.tenant = m.tenant`;
    if (rows.length > 1) throw new Error(`${rows.length} confirmations moved to ${to} by one id`);
    return rows[0] ?? null;
  }

  /**
   * pending past its TTL -> expired, and denied ones closed, each claimed once (resumed_at), in
   * the caller's transaction; returns them with their parked decision's body.
   */
  async expireAndCloseDenied(tx: Tx): Promise<ClosedConfirmation[]> {
    const rows = await tx.$queryRaw<{ now: Date; decision_id: string; status: 'denied' | 'expired'; tenant: string; principal: string; body: string }[]>`
      UPDATE confirmations c
      SET status = CASE WHEN c.status = 'pending' THEN 'expired' ELSE c.status END, resumed_at = now()
      FROM decision_inbox di
      WHERE di.decision_id = c.decision_id AND di.tenant = c.tenant AND c.resumed_at IS NULL
        AND (c.status = 'denied' OR (c.status = 'pending' AND c.expires_at < now()))
      RETURNING now() AS now, c.decision_id, c.status, c.tenant, c.principal, di.body`;
    return rows.map((r) => ({ decisionId: r.decision_id, status: r.status, tenant: r.tenant, principal: r.principal, body: r.body, closedAt: r.now }));
  }

  /** Locks decided, unresumed confirmations in id order, skipping those another worker holds. */
  async lockForResume(tx: Tx, confirmationIds: string[]): Promise<Set<string>> {
    if (confirmationIds.length === 0) return new Set();
    const locked = await tx.$queryRaw<{ confirmation_id: string }[]>`
      SELECT confirmation_id FROM confirmations
      WHERE confirmation_id = ANY(${confirmationIds}::text[]) AND status <> 'pending' AND resumed_at IS NULL
      ORDER BY confirmation_id FOR UPDATE SKIP LOCKED`;
    return new Set(locked.map((r) => r.confirmation_id));
  }

  /**
   * Claims decided confirmations for resumption (resumed_at), all or nothing: another worker that
   * raced us fails here. Not guarded by status: in the same transaction the resumed decision may
   * already have reserved its confirmation (approved -> reserved) or been refused.
   */
  async claimForResume(tx: Tx, confirmationIds: string[]): Promise<void> {
    if (confirmationIds.length === 0) return;
    const claimed = await tx.$executeRaw`
      UPDATE confirmations SET resumed_at = now()
      WHERE confirmation_id = ANY(${confirmationIds}::text[]) AND status <> 'pending' AND resumed_at IS NULL`;
    if (claimed !== confirmationIds.length) throw new Error(`claimed ${claimed} of ${confirmationIds.length} approved confirmations`);
  }

  /**
   * approved -> reserved by the new capability, only for exactly this action and while the grant
   * lasts; all or nothing. Throws ConfirmationNotReservable naming the ones that were not.
   */
  async reserve(tx: Tx, requests: ReserveRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const col = <K extends keyof ReserveRequest>(k: K) => requests.map((r) => r[k]);
    const reserved = await tx.$queryRaw<{ confirmation_id: string }[]>`
      UPDATE confirmations c SET status = 'reserved', reserved_by = v.capability_id
      FROM unnest(${col('confirmationId')}::text[], ${col('capabilityId')}::text[], ${col('tool')}::text[],
                  ${col('payloadSha256')}::text[], ${col('principal')}::text[], ${col('tenant')}::text[],
                  ${requests.map((r) => r.issuer ?? null)}::text[])
           AS v(confirmation_id, capability_id, tool, payload_sha256, principal, tenant, issuer)
      WHERE c.confirmation_id = v.confirmation_id AND c.status = 'approved' AND c.tool = v.tool
        AND c.payload_sha256 = v.payload_sha256 AND c.principal = v.principal AND c.tenant = v.tenant
        AND (c.issuer IS NULL OR v.issuer IS NULL OR c.issuer = v.issuer)
        AND c.grant_expires_at > now()
      RETURNING c.confirmation_id`;
    if (reserved.length !== requests.length) {
      // The same confirmation presented twice also lands here: one row can be reserved once.
      const done = new Set(reserved.map((r) => r.confirmation_id));
      const missing = requests.map((r) => r.confirmationId).filter((id) => !done.has(id));
      throw new ConfirmationNotReservable(missing.length > 0 ? missing : [requests[0].confirmationId]);
    }
  }

  /**
   * reserved -> approved (released) or consumed, once the capability that reserved it ends: keyed
   * on the effect boundary, never on success. Released before any effect; spent (single use) once
   * an effect started, failed or is unknown. Not every capability reserved a confirmation, so the
   * row count is at most the number given.
   */
  async finalize(tx: Sql, capabilityIds: readonly string[], states: readonly EffectBoundary[]): Promise<number> {
    if (capabilityIds.length === 0) return 0;
    const moved = await tx.$executeRaw`
      UPDATE confirmations c
      SET status = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN 'approved' ELSE 'consumed' END,
          reserved_by = CASE WHEN v.state IN ('pre_effect_refusal', 'effect_not_started') THEN NULL ELSE c.reserved_by END
      FROM unnest(${[...capabilityIds]}::text[], ${[...states]}::text[]) AS v(capability_id, state)
      WHERE c.reserved_by = v.capability_id AND c.status = 'reserved'`;
    if (moved > capabilityIds.length) throw new Error(`finalized ${moved} confirmations for ${capabilityIds.length} capabilities`);
    return moved;
  }
}
