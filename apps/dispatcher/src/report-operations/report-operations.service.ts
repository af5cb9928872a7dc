import { Injectable } from '@nestjs/common';
import { DispatcherPools } from '../config/dispatcher-pools';
import { Gauge } from 'prom-client';
import { Database } from '@arvis/persistence';
import { MetricsRegistry, scrapeSnapshot } from '@arvis/runtime';

interface Snapshot {
  pendingConfirmations: number;
  /** Seconds until the soonest pending confirmation expires (negative once past); NaN: none pending. */
  nextExpirySeconds: number;
  /** By pool (every pool's: a count, no row's content), ADR 0081. */
  unresolvedUnknown: Map<string, number>;
  auditIncompleteRuns: number;
}

/**
 * What an operator acts on, read from the database at scrape time (ADR 0060): no statement on the
 * hot path. Exported by the dispatcher, whose role reads effects, runs and confirmations; every
 * dispatcher replica reports the same figures, so rules aggregate them with `max`, never `sum`.
 */
@Injectable()
export class ReportOperationsService {
  constructor(private readonly db: Database, metrics: MetricsRegistry, pools: DispatcherPools) {
    const registers = [metrics];
    // Every gauge of one scrape reads one snapshot.
    const snapshot = scrapeSnapshot(() => this.read());
    const read = (pick: (s: Snapshot) => number) =>
      async function (this: Gauge) {
        this.set(pick(await snapshot()));
      };
    new Gauge({ name: 'arvis_confirmations_pending', help: 'Confirmations waiting for an approver (not yet approved, denied or expired)', registers, collect: read((s) => s.pendingConfirmations) });
    new Gauge({
      name: 'arvis_confirmation_next_expiry_seconds',
      help: 'Seconds until the soonest pending confirmation expires (NaN when none is pending)',
      registers,
      collect: read((s) => s.nextExpirySeconds),
    });
    // By pool (ADR 0081): every pool's count, so a pool whose dispatchers are all down still pages;
    // rules take the max over replicas per pool, then the sum over pools.
    new Gauge({
      name: 'arvis_effects_unknown_unresolved',
      help: 'Effects that ended effect_state_unknown and no operator has resolved (duplicates waiting on one excluded), by pool: each is a page',
      labelNames: ['pool'],
      registers,
      async collect() {
        const byPool = (await snapshot()).unresolvedUnknown;
        this.reset();
        for (const p of new Set([...pools.names, ...byPool.keys()])) this.set({ pool: p }, byPool.get(p) ?? 0);
      },
    });
    new Gauge({ name: 'arvis_runs_audit_incomplete', help: 'Runs marked audit-incomplete (a result that could not be journaled, ADR 0016)', registers, collect: read((s) => s.auditIncompleteRuns) });
  }

  // The unknown predicate is the resolve statement's own (ADR 0036, 0056): unknown, not resolved,
  // and holding its own outcome (a duplicate waiting on it is resolved through its holder).
  private async read(): Promise<Snapshot> {
    const [row] = await this.db.$queryRaw<{ pending: bigint; next_expiry: number | null; unknown: Record<string, number> | null; audit: bigint }[]>`
      SELECT (SELECT count(*) FROM confirmations WHERE status = 'pending') AS pending,
             (SELECT extract(epoch FROM min(expires_at) - now())::float8 FROM confirmations WHERE status = 'pending') AS next_expiry,
             (SELECT jsonb_object_agg(pool, n) FROM (SELECT pool, count(*) AS n FROM effects
                WHERE state = 'effect_state_unknown' AND resolved_at IS NULL AND waits_for IS NULL GROUP BY pool) u) AS unknown,
             (SELECT count(*) FROM runs WHERE audit_incomplete) AS audit`;
    return {
      pendingConfirmations: Number(row.pending),
      nextExpirySeconds: row.next_expiry === null ? Number.NaN : row.next_expiry,
      unresolvedUnknown: new Map(Object.entries(row.unknown ?? {}).map(([p, n]) => [p, Number(n)])),
      auditIncompleteRuns: Number(row.audit),
    };
  }
}
