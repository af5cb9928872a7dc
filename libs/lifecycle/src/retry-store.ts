import { Injectable } from '@nestjs/common';
import type { ToolRetryPolicy } from '@arvis/tool-sdk';
import type { Sql } from './sql';

/** A decision whose result may be retried. */
export interface RetryRequest {
  decisionId: string;
  causalId: string;
  runId: string;
  /** The decision's tenant: its ids, and so its retries', are unique within it (ADR 0061). */
  tenant: string;
  /** Its tool's policy (ADR 0076); absent: the defaults (`limits.maxAttempts`, due at once). */
  policy?: ToolRetryPolicy;
}

/** The dispatcher's configured bounds: RETRY_MAX_ATTEMPTS (a policy may name its own) and RETRY_MAX_RISK. */
export interface RetryLimits {
  maxAttempts: number;
  maxRisk: number;
}

/** A retry row, by its derived decision id within its tenant. */
export interface RetryKey {
  decisionId: string;
  tenant: string;
}

/**
 * The only writer of `retries` (ADR 0087): none -> pending (the dispatcher, in the transaction that
 * records the result it answers), pending -> submitted (the authorizer's worker, in the transaction
 * that handles the new decision). Retention deletes rows past the dedupe window (ADR 0041,
 * retention-pruner.ts). Statements are moved here verbatim, whitespace included: a statement's
 * text names its prepared statement.
 *
 * Attempts are counted from the retries table, the risk comes from the decision as received, and
 * the chain is the parent's (a retry of a retry stays in its first decision's chain). A row is due
 * at its not-before time: now() (this transaction's, the failure's) plus the tool's backoff for
 * that attempt, initial × coefficient^(attempt - 1), at most the policy's maximum (ADR 0076).
 *
 * The retry's decisionId is derived, never built by concatenating client text: `arvis.retry.`,
 * 40 hex characters of the chain's SHA-256 and the attempt. It stays within the contract's 200
 * characters whatever the chain id, and the `arvis.` prefix is refused on decisions from outside,
 * so no client can take a retry's id first.
 */
@Injectable()
export class RetryStore {
  /**
   * A pending row for each decision within the risk and attempt limits; none for the others, nor
   * for one already requested (ON CONFLICT DO NOTHING). Returns how many were inserted: at most
   * as many as given.
   */
  async requestRetry(tx: Sql, candidates: readonly RetryRequest[], limits: RetryLimits): Promise<number> {
    if (candidates.length === 0) return 0;
    const p = candidates.map((c) => c.policy);
    // least() ignores a NULL maximum: no bound.
    return tx.$executeRaw`
      INSERT INTO retries (decision_id, tenant, chain_id, attempt, parent_decision_id, parent_causal_id, run_id, status, not_before)
      SELECT 'arvis.retry.' || left(encode(sha256(convert_to(c.chain_id, 'UTF8')), 'hex'), 40) || '.' || n.next_attempt,
             v.tenant, c.chain_id, n.next_attempt, v.decision_id, v.causal_id, v.run_id, 'pending',
             now() + make_interval(secs => least(v.initial_ms * power(v.coefficient, n.next_attempt - 1), v.max_ms) / 1000)
      FROM unnest(${candidates.map((c) => c.decisionId)}::text[], ${candidates.map((c) => c.causalId)}::text[],
                  ${candidates.map((c) => c.runId)}::text[], ${candidates.map((c) => c.tenant)}::text[],
                  ${p.map((x) => x?.maxAttempts ?? limits.maxAttempts)}::int[], ${p.map((x) => x?.initialIntervalMs ?? 0)}::float8[],
                  ${p.map((x) => x?.backoffCoefficient ?? 2)}::float8[], ${p.map((x) => x?.maxIntervalMs ?? null)}::float8[])
           AS v(decision_id, causal_id, run_id, tenant, max_attempts, initial_ms, coefficient, max_ms)
      JOIN decision_inbox di ON di.decision_id = v.decision_id AND di.tenant = v.tenant
      LEFT JOIN retries parent ON parent.decision_id = v.decision_id AND parent.tenant = v.tenant
      CROSS JOIN LATERAL (SELECT coalesce(parent.chain_id, v.decision_id) AS chain_id) c
      CROSS JOIN LATERAL (SELECT count(*)::int + 1 AS next_attempt FROM retries r WHERE r.chain_id = c.chain_id AND r.tenant = v.tenant) n
      WHERE (di.body::jsonb ->> 'riskScore')::float8 <= ${limits.maxRisk}
        AND n.next_attempt < v.max_attempts
      ON CONFLICT DO NOTHING`;
  }

  /**
   * Locks the due pending rows among these, in key order; rows another authorizer holds are
   * skipped, not waited for (they are that worker's to submit). Returns the locked ones.
   */
  async lockDue(tx: Sql, retries: readonly RetryKey[]): Promise<RetryKey[]> {
    const locked = await tx.$queryRaw<{ decision_id: string; tenant: string }[]>`
        SELECT decision_id, tenant FROM retries
        WHERE (decision_id, tenant) IN (SELECT * FROM unnest(${retries.map((r) => r.decisionId)}::text[], ${retries.map((r) => r.tenant)}::text[]))
          AND status = 'pending' AND not_before <= now()
        ORDER BY decision_id, tenant FOR UPDATE SKIP LOCKED`;
    return locked.map((r) => ({ decisionId: r.decision_id, tenant: r.tenant }));
  }

  /** pending -> submitted, for rows this transaction locked: every one must move. */
  async markSubmitted(tx: Sql, retries: readonly RetryKey[]): Promise<void> {
    const ids = retries.map((r) => r.decisionId);
    const moved = await tx.$executeRaw`
        UPDATE retries SET status = 'submitted', submitted_at = now()
        WHERE (decision_id, tenant) IN (SELECT * FROM unnest(${ids}::text[], ${retries.map((r) => r.tenant)}::text[])) AND status = 'pending'`;
    if (moved !== ids.length) throw new Error(`marked ${moved} of ${ids.length} locked retries submitted`);
  }
}
