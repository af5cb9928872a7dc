import { Inject, Injectable } from '@nestjs/common';
import type { Tx } from '@arvis/persistence';
import type { ToolRetryPolicy } from '@arvis/tool-sdk';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';

export interface RetryCandidate {
  decisionId: string;
  causalId: string;
  runId: string;
  /** The decision's tenant: its ids, and so its retries', are unique within it (ADR 0061). */
  tenant: string;
  /** Its tool's policy (ADR 0076); absent: the defaults (RETRY_MAX_ATTEMPTS, due at once). */
  policy?: ToolRetryPolicy;
}

/**
 * A retry is a row, created in the transaction that records the result it answers: attempts are
 * counted from the retries table, the risk comes from the decision as received, and the chain is
 * the parent's (a retry of a retry stays in its first decision's chain). The authorizer's worker
 * turns each row into a new decision that goes through the whole path again, once its
 * not-before time has come: now() (this transaction's, the failure's) plus the tool's backoff for
 * that attempt, initial × coefficient^(attempt - 1), at most the policy's maximum (ADR 0076).
 *
 * The retry's decisionId is derived, never built by concatenating client text: `arvis.retry.`,
 * 40 hex characters of the chain's SHA-256 and the attempt. It stays within the contract's 200
 * characters whatever the chain id, and the `arvis.` prefix is refused on decisions from outside,
 * so no client can take a retry's id first.
 */
@Injectable()
export class RequestRetriesService {
  constructor(@Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig) {}

  async request(tx: Tx, candidates: readonly RetryCandidate[]): Promise<number> {
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
                  ${p.map((x) => x?.maxAttempts ?? this.config.retry.maxAttempts)}::int[], ${p.map((x) => x?.initialIntervalMs ?? 0)}::float8[],
                  ${p.map((x) => x?.backoffCoefficient ?? 2)}::float8[], ${p.map((x) => x?.maxIntervalMs ?? null)}::float8[])
           AS v(decision_id, causal_id, run_id, tenant, max_attempts, initial_ms, coefficient, max_ms)
      JOIN decision_inbox di ON di.decision_id = v.decision_id AND di.tenant = v.tenant
      LEFT JOIN retries parent ON parent.decision_id = v.decision_id AND parent.tenant = v.tenant
      CROSS JOIN LATERAL (SELECT coalesce(parent.chain_id, v.decision_id) AS chain_id) c
      CROSS JOIN LATERAL (SELECT count(*)::int + 1 AS next_attempt FROM retries r WHERE r.chain_id = c.chain_id AND r.tenant = v.tenant) n
      WHERE (di.body::jsonb ->> 'riskScore')::float8 <= ${this.config.retry.maxRisk}
        AND n.next_attempt < v.max_attempts
      ON CONFLICT DO NOTHING`;
  }
}
