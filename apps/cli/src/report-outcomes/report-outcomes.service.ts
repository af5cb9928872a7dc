import type { Pool, PoolClient } from 'pg';
import { aggregateOutcomes, type OutcomeGroupRow, type OutcomeReport, type ToolLatencyRow } from './aggregate-outcomes';
import { resolveWindow, type ReportWindow, type TimePoint } from './report-window';

// Counted in SQL, so the report reads a handful of groups, not every entry of a busy day.
const GROUPS_SQL = `
  SELECT tool, tenant, kind, effect_boundary, reason_code,
         (floor(extract(epoch FROM recorded_at) * 1000 / $3::bigint) * $3::bigint)::bigint::text AS bucket_ms,
         count(*)::int AS entries
  FROM journal
  WHERE recorded_at >= $1 AND recorded_at < $2
  GROUP BY 1, 2, 3, 4, 5, 6`;

// Final entries only (one per decision). The inbox row is absent for a decision the authorizer
// never recorded (none reach the journal today), so latency counts only decisions that have one.
const LATENCY_SQL = `
  WITH final AS (
    SELECT j.tool,
           -- Same-transaction refusals: received_at is rounded to the millisecond by its column type and
           -- recordedAt truncated, so the difference can come out -1 ms; a latency is never negative.
           greatest(0, round(extract(epoch FROM (j.recorded_at - i.received_at)) * 1000))::float8 AS latency_ms,
           (j.entry::jsonb ->> 'latencyMs')::float8 AS tool_ms
    FROM journal j LEFT JOIN decision_inbox i ON i.decision_id = j.decision_id AND i.tenant = j.tenant
    WHERE j.final_decision_id IS NOT NULL AND j.recorded_at >= $1 AND j.recorded_at < $2)
  SELECT tool,
         count(latency_ms)::int AS samples,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50_ms,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95_ms,
         max(latency_ms) AS max_ms,
         count(tool_ms)::int AS tool_samples,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY tool_ms) AS tool_p50_ms,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY tool_ms) AS tool_p95_ms
  FROM final GROUP BY tool`;

/** Outcomes of a time window, read from the journal table (and the inbox, for latency). */
export class ReportOutcomesService {
  constructor(private readonly db: Pool) {}

  /** The report, or the reason the window is unusable (an empty or inverted range). */
  async report(since: TimePoint | undefined, until: TimePoint | undefined): Promise<OutcomeReport | { problem: string }> {
    const client = await this.db.connect();
    try {
      // One snapshot: the counts and the percentiles describe the same entries.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Relative edges count back from the database's clock, the one that wrote recorded_at.
      const [{ now }] = (await client.query<{ now: Date }>('SELECT now() AS now')).rows;
      const window = resolveWindow(since, until, now);
      const report = 'problem' in window ? window : await this.read(client, window);
      await client.query('COMMIT');
      return report;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  private async read(client: PoolClient, window: ReportWindow): Promise<OutcomeReport> {
    const range = [window.since, window.until];
    const groups = (await client.query<OutcomeGroupRow>(GROUPS_SQL, [...range, window.bucketMs])).rows;
    const latency = (await client.query<ToolLatencyRow>(LATENCY_SQL, range)).rows;
    return aggregateOutcomes(window, groups, latency);
  }
}
