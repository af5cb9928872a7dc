import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Database } from '@arvis/persistence';
import { MetricsRegistry, scrapeSnapshot } from '@arvis/runtime';

interface Snapshot {
  pendingConfirmations: number;
  /** Seconds until the soonest pending confirmation expires (negative once past); NaN: none pending. */
  nextExpirySeconds: number;
  unresolvedUnknown: number;
  auditIncompleteRuns: number;
}

/**
 * What an operator acts on, read from the database at scrape time (ADR 0060): no statement on the
 * hot path. Exported by the dispatcher, whose role reads effects, runs and confirmations; every
 * dispatcher replica reports the same figures, so rules aggregate them with `max`, never `sum`.
 */
@Injectable()
export class ReportOperationsService {
  constructor(private readonly db: Database, metrics: MetricsRegistry) {
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
    new Gauge({
      name: 'arvis_effects_unknown_unresolved',
      help: 'Effects that ended effect_state_unknown and no operator has resolved (duplicates waiting on one excluded): each is a page',
      registers,
      collect: read((s) => s.unresolvedUnknown),
    });
    new Gauge({ name: 'arvis_runs_audit_incomplete', help: 'Runs marked audit-incomplete (a result that could not be journaled, ADR 0016)', registers, collect: read((s) => s.auditIncompleteRuns) });
  }

  // The unknown predicate is the resolve statement's own (ADR 0036, 0056): unknown, not resolved,
  // and holding its own outcome (a duplicate waiting on it is resolved through its holder).
  private async read(): Promise<Snapshot> {
    const [row] = await this.db.$queryRaw<{ pending: bigint; next_expiry: number | null; unknown: bigint; audit: bigint }[]>`
      SELECT (SELECT count(*) FROM confirmations WHERE status = 'pending') AS pending,
             (SELECT extract(epoch FROM min(expires_at) - now())::float8 FROM confirmations WHERE status = 'pending') AS next_expiry,
             (SELECT count(*) FROM effects WHERE state = 'effect_state_unknown' AND resolved_at IS NULL AND waits_for IS NULL) AS unknown,
             (SELECT count(*) FROM runs WHERE audit_incomplete) AS audit`;
    return {
      pendingConfirmations: Number(row.pending),
      nextExpirySeconds: row.next_expiry === null ? Number.NaN : row.next_expiry,
      unresolvedUnknown: Number(row.unknown),
      auditIncompleteRuns: Number(row.audit),
    };
  }
}
