import { Pool } from 'pg';
import type { Topics } from '@arvis/contracts';

/** Effect rows as the tools themselves recorded them, one SELECT per tool's own table. */
export const TOOL_EFFECTS = `
  SELECT 'notes.append' AS tool, idempotency_key, capability_id FROM notes
  UNION ALL SELECT 'ledger.transfer', idempotency_key, capability_id FROM ledger_transfers
  UNION ALL SELECT 'flaky.record', idempotency_key, capability_id FROM flaky_effects
  UNION ALL SELECT 'mail.send', idempotency_key, capability_id FROM mail_sink`;

export interface Progress {
  finals: number;
  started: number;
  unpublished: number;
}

export interface UnknownEffect {
  capabilityId: string;
  decisionId: string;
  tool: string;
  dispatcherId: string;
  /** The body wrote its start marker: it may have acted. */
  marked: boolean;
  /** The tool's own table holds its effect: it did act, and the result was lost. */
  acted: boolean;
  /** What an operator resolved it as (ADR 0036), if they did. */
  resolvedAs?: 'effect_completed' | 'effect_not_started';
  /** The body's own result that came after the effect was closed (ADR 0056), if one came. */
  lateState?: string;
}

export interface InFlight {
  started: number;
  marked: number;
  markedNotActed: number;
}

/** The operator's resolutions as the effects table holds them, judged after the run. */
export interface Resolutions {
  completed: number;
  notHappened: number;
  /** "Not happened" taken while the body may still have run: before its deadline + overrun, with no settled late result by then. */
  notHappenedWhileMayRun: number;
}

/** What the bodies of paused dispatchers did after they resumed. */
export interface LateResults {
  /** Effects of the paused processes with a late result recorded. */
  late: number;
  /** Their effects closed unknown whose body acted, with no late result: a result lost although the process came back. */
  actedWithoutLateResult: number;
}

export interface DuplicateKey {
  tool: string;
  idempotencyKey: string;
  effects: number;
  capabilities: number;
}

/** Read-only queries on the suite's database; a fresh connection each time (PostgreSQL may restart). */
export class Measure {
  constructor(private readonly url: string, private readonly topics: Topics) {}

  private async q<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const pool = new Pool({ connectionString: this.url, max: 1 });
    pool.on('error', () => undefined);
    try {
      return (await pool.query<T>(sql, params)).rows;
    } finally {
      await pool.end();
    }
  }

  async progress(sent: string[]): Promise<Progress> {
    const [r] = await this.q<{ finals: number; started: number; unpublished: number }>(
      `SELECT (SELECT count(DISTINCT final_decision_id)::int FROM journal WHERE final_decision_id = ANY($1)) AS finals,
              (SELECT count(*)::int FROM effects WHERE state = 'effect_started') AS started,
              (SELECT count(*)::int FROM outbox WHERE published_at IS NULL) AS unpublished`,
      [sent],
    );
    return r;
  }

  async severalFinals(sent: string[]): Promise<number> {
    const [r] = await this.q<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT final_decision_id FROM journal WHERE final_decision_id = ANY($1)
       GROUP BY final_decision_id HAVING count(*) > 1) t`,
      [sent],
    );
    return r.n;
  }

  async maxExecutionsPerCapability(): Promise<{ max: number; capabilitiesRunTwice: number; bodies: number }> {
    const [r] = await this.q<{ max: number; twice: number; bodies: number }>(
      `SELECT coalesce(max(n), 0)::int AS max, count(*) FILTER (WHERE n > 1)::int AS twice, coalesce(sum(n), 0)::int AS bodies
       FROM (SELECT count(*) AS n FROM tool_body_starts WHERE NOT recovery_fence GROUP BY capability_id) t`,
    );
    return { max: r.max, capabilitiesRunTwice: r.twice, bodies: r.bodies };
  }

  async effectsPerKey(): Promise<{ max: number; duplicates: DuplicateKey[] }> {
    const [m] = await this.q<{ max: number }>(`SELECT coalesce(max(n), 0)::int AS max FROM (SELECT count(*) AS n FROM (${TOOL_EFFECTS}) e GROUP BY tool, idempotency_key) t`);
    const duplicates = await this.q<{ tool: string; idempotency_key: string; effects: number; capabilities: number }>(
      `SELECT tool, idempotency_key, count(*)::int AS effects, count(DISTINCT capability_id)::int AS capabilities
       FROM (${TOOL_EFFECTS}) e GROUP BY tool, idempotency_key HAVING count(*) > 1 ORDER BY tool, idempotency_key`,
    );
    return {
      max: m.max,
      duplicates: duplicates.map((d) => ({ tool: d.tool, idempotencyKey: d.idempotency_key, effects: d.effects, capabilities: d.capabilities })),
    };
  }

  async unknownEffects(): Promise<UnknownEffect[]> {
    const rows = await this.q<{ capability_id: string; decision_id: string; tool: string; dispatcher_id: string; marked: boolean; acted: boolean; resolved_as: string | null; late_state: string | null }>(
      `SELECT e.capability_id, e.decision_id, i.tool, e.dispatcher_id,
              EXISTS (SELECT 1 FROM tool_body_starts m WHERE m.capability_id = e.capability_id AND NOT m.recovery_fence) AS marked,
              EXISTS (SELECT 1 FROM (${TOOL_EFFECTS}) t WHERE t.capability_id = e.capability_id) AS acted,
              CASE WHEN e.resolved_at IS NOT NULL THEN e.state END AS resolved_as, e.late_state
       FROM effects e JOIN intents i ON i.intent_id = e.intent_id
       WHERE e.state = 'effect_state_unknown' OR e.resolved_at IS NOT NULL ORDER BY e.started_at`,
    );
    return rows.map((r) => ({
      capabilityId: r.capability_id,
      decisionId: r.decision_id,
      tool: r.tool,
      dispatcherId: r.dispatcher_id,
      marked: r.marked,
      acted: r.acted,
      ...(r.resolved_as ? { resolvedAs: r.resolved_as as UnknownEffect['resolvedAs'] } : {}),
      ...(r.late_state ? { lateState: r.late_state } : {}),
    }));
  }

  /** Unknown effects an operator could resolve and has not (a duplicate waiting on one is not its own). */
  async unresolvedUnknown(): Promise<number> {
    const [r] = await this.q<{ n: number }>(
      "SELECT count(*)::int AS n FROM effects WHERE state = 'effect_state_unknown' AND resolved_at IS NULL AND waits_for IS NULL",
    );
    return r.n;
  }

  /** Effects closed as not started (by recovery's fence, a never-started claim or an operator) whose body acted all the same. */
  async notStartedButActed(): Promise<number> {
    const [r] = await this.q<{ n: number }>(
      `SELECT count(*)::int AS n FROM effects e WHERE e.state = 'effect_not_started'
         AND EXISTS (SELECT 1 FROM (${TOOL_EFFECTS}) t WHERE t.capability_id = e.capability_id)`,
    );
    return r.n;
  }

  /** The operator's resolutions; `maxOverrunMs` is the authorizer's EFFECT_MAX_OVERRUN_MS. */
  async resolutions(maxOverrunMs: number): Promise<Resolutions> {
    const [r] = await this.q<{ completed: number; not_happened: number; early: number }>(
      `SELECT count(*) FILTER (WHERE state = 'effect_completed')::int AS completed,
              count(*) FILTER (WHERE state = 'effect_not_started')::int AS not_happened,
              count(*) FILTER (WHERE state = 'effect_not_started'
                AND resolved_at < deadline_at + make_interval(secs => $1::float8 / 1000)
                AND NOT (late_at IS NOT NULL AND late_at <= resolved_at AND late_reason_code IS DISTINCT FROM 'tool_timeout'))::int AS early
       FROM effects WHERE resolved_at IS NOT NULL`,
      [maxOverrunMs],
    );
    return { completed: r.completed, notHappened: r.not_happened, notHappenedWhileMayRun: r.early };
  }

  /** Late results of the given dispatcher processes' effects (ids host-pid). */
  async lateResults(dispatcherIds: string[]): Promise<LateResults> {
    const [r] = await this.q<{ late: number; lost: number }>(
      `SELECT count(*) FILTER (WHERE e.late_at IS NOT NULL)::int AS late,
              count(*) FILTER (WHERE e.late_at IS NULL AND (e.state = 'effect_state_unknown' OR e.resolved_at IS NOT NULL)
                AND EXISTS (SELECT 1 FROM (${TOOL_EFFECTS}) t WHERE t.capability_id = e.capability_id))::int AS lost
       FROM effects e WHERE e.dispatcher_id = ANY($1)`,
      [dispatcherIds],
    );
    return { late: r.late, actedWithoutLateResult: r.lost };
  }

  /** Effects a dispatcher process had started and not finished: its bodies in flight (begun: marker; acted: the tool's row). */
  async inFlight(dispatcherId: string, pool?: Pool): Promise<InFlight> {
    const sql = `SELECT count(*)::int AS started, count(*) FILTER (WHERE m)::int AS marked, count(*) FILTER (WHERE m AND NOT a)::int AS not_acted
       FROM (SELECT EXISTS (SELECT 1 FROM tool_body_starts b WHERE b.capability_id = e.capability_id AND NOT b.recovery_fence) AS m,
                    EXISTS (SELECT 1 FROM (${TOOL_EFFECTS}) t WHERE t.capability_id = e.capability_id) AS a
             FROM effects e WHERE e.dispatcher_id = $1 AND e.state = 'effect_started') x`;
    const [r] = pool
      ? (await pool.query<{ started: number; marked: number; not_acted: number }>(sql, [dispatcherId])).rows
      : await this.q<{ started: number; marked: number; not_acted: number }>(sql, [dispatcherId]);
    return { started: r.started, marked: r.marked, markedNotActed: r.not_acted };
  }

  /** One connection kept for many quick inFlight looks (a fault trying moment after moment); end() it. */
  probe(): Pool {
    const pool = new Pool({ connectionString: this.url, max: 1 });
    pool.on('error', () => undefined);
    return pool;
  }

  async auditIncompleteRuns(): Promise<string[]> {
    return (await this.q<{ run_id: string }>('SELECT run_id FROM runs WHERE audit_incomplete ORDER BY run_id')).map((r) => r.run_id);
  }

  async dlqRecords(): Promise<number> {
    const [r] = await this.q<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE topic = ANY($1)', [[this.topics.decisionsDlq, this.topics.intentsDlq]]);
    return r.n;
  }

  /** Final entries by boundary and reason, for the report (not a check). */
  async finalsByOutcome(sent: string[]): Promise<Record<string, number>> {
    const rows = await this.q<{ k: string; n: number }>(
      `SELECT kind || '/' || effect_boundary || coalesce('/' || reason_code, '') AS k, count(*)::int AS n
       FROM journal WHERE final_decision_id = ANY($1) GROUP BY 1 ORDER BY 2 DESC`,
      [sent],
    );
    return Object.fromEntries(rows.map((r) => [r.k, r.n]));
  }
}
