import type { Pool, PoolClient } from 'pg';

/** Windows and batch size of retention (ADR 0041); the windows are read against the database clock. */
export interface RetentionSettings {
  /** Intents, capabilities and finished effects of decisions whose final entry is older than this. */
  decisionsMs: number;
  /** Inbox rows (decisionId dedupe), confirmations, retries and key-holding effects: older than this. */
  dedupeMs: number;
  /** Rows looked at by one statement (one transaction). */
  batch: number;
}

export interface PruneCounts {
  intents: number;
  capabilities: number;
  effects: number;
  inbox: number;
  confirmations: number;
  retries: number;
  /** Body-start markers (tool_body_starts) of pruned capabilities; recovery's fences are kept. */
  markers: number;
  /** Approver webhook rows (ADR 0070) of pruned confirmations. */
  notifications: number;
  batches: number;
}

export const NO_PRUNED_ROWS: PruneCounts = { intents: 0, capabilities: 0, effects: 0, inbox: 0, confirmations: 0, retries: 0, markers: 0, notifications: 0, batches: 0 };

/** One pruner at a time across all processes (distinct from the relay's and checkpointer's locks). */
const PRUNER_LOCK = 0x41524554; // 'ARET'

/** Keyset position inside one pass: rows kept for a reason are stepped over, not read again. */
interface Cursor {
  at: string;
  id: string;
}
const START: Cursor = { at: '-infinity', id: '' };

// Effects still running or waiting, and unknown effects an operator must settle, keep their decision.
const KEEPING_EFFECT_STATES = ['effect_pending', 'effect_started', 'effect_waiting', 'effect_state_unknown'];
// A confirmation not yet consumed, denied or expired keeps its decision (and its inbox body).
const OPEN_CONFIRMATIONS = ['pending', 'approved', 'reserved'];

/**
 * Material of finished decisions: intent, capability and effect, oldest intent first. A decision
 * goes only when its final entry is older than the window; its effect is not running, waiting or
 * unknown; no confirmation of it is open. An effect that holds its idempotency key stays (the
 * dedupe pass removes it). The horizon is raised in the same statement, so a reader's snapshot
 * sees the deletions and the horizon together.
 */
const MATERIAL_BATCH = `
WITH scanned AS (
  SELECT i.intent_id, i.capability_id, i.decision_id, i.tenant, i.committed_at
  FROM intents i
  WHERE i.committed_at < now() - make_interval(secs => $1::float8 / 1000)
    AND (i.committed_at, i.intent_id) > ($2::timestamptz, $3::text)
  ORDER BY i.committed_at, i.intent_id
  LIMIT $4
), prunable AS (
  SELECT s.intent_id, s.capability_id, j.chain, j.journal_seq, coalesce(e.holds_key AND e.state = 'effect_completed', false) AS keeps_key
  FROM scanned s
  JOIN journal j ON j.final_decision_id = s.decision_id AND j.tenant = s.tenant AND j.recorded_at < now() - make_interval(secs => $1::float8 / 1000)
  LEFT JOIN effects e ON e.capability_id = s.capability_id
  WHERE (e.state IS NULL OR e.state <> ALL($5::text[]))
    AND NOT EXISTS (SELECT 1 FROM confirmations c WHERE c.decision_id = s.decision_id AND c.tenant = s.tenant AND c.status = ANY($6::text[]))
), horizon AS (
  -- Per chain (ADR 0062): each chain's horizon is a seq of that chain.
  UPDATE retention_horizon h SET material_through = greatest(h.material_through, m.seq), updated_at = now()
  FROM (SELECT chain, max(journal_seq) AS seq FROM prunable GROUP BY chain) m
  WHERE h.chain = m.chain
  RETURNING 1
), gone_effects AS (
  DELETE FROM effects e USING prunable p WHERE e.capability_id = p.capability_id AND NOT p.keeps_key RETURNING 1
), gone_markers AS (
  -- A body's start marker is needed while recovery may still judge its effect; the capability goes
  -- here, so no delivery can consume it and start a body again. Recovery's fences stay: a body
  -- stalled past the window must still find its slot taken (ADR 0056).
  DELETE FROM tool_body_starts b USING prunable p WHERE b.capability_id = p.capability_id AND NOT b.recovery_fence RETURNING 1
), gone_capabilities AS (
  DELETE FROM capabilities c USING prunable p WHERE c.capability_id = p.capability_id RETURNING 1
), gone_intents AS (
  DELETE FROM intents i USING prunable p WHERE i.intent_id = p.intent_id RETURNING 1
)
SELECT (SELECT count(*) FROM scanned)::int AS scanned,
       (SELECT count(*) FROM prunable)::int AS prunable,
       (SELECT count(*) FROM horizon)::int AS horizon,
       (SELECT count(DISTINCT chain) FROM prunable)::int AS chains,
       (SELECT count(*) FROM gone_effects)::int AS effects,
       (SELECT count(*) FROM gone_capabilities)::int AS capabilities,
       (SELECT count(*) FROM gone_intents)::int AS intents,
       (SELECT count(*) FROM gone_markers)::int AS markers,
       (SELECT committed_at::text FROM scanned ORDER BY committed_at DESC, intent_id DESC LIMIT 1) AS last_at,
       (SELECT intent_id FROM scanned ORDER BY committed_at DESC, intent_id DESC LIMIT 1) AS last_id`;

/**
 * What dedupe needs, after the window: the inbox row (a redelivered decisionId is a no-op while
 * it exists), the decision's confirmation with its approver notifications, and its retry row. Only once its material is gone (so
 * every reason that kept the material keeps these too), no retry waits on its body, and every
 * retry of its chain has been submitted and ended (attempts are counted from the retries table).
 */
const DEDUPE_BATCH = `
WITH scanned AS (
  SELECT d.decision_id, d.tenant, d.received_at, d.source_partition, d.source_offset
  FROM decision_inbox d
  WHERE d.received_at < now() - make_interval(secs => $1::float8 / 1000)
    AND (d.received_at, d.decision_id) > ($2::timestamptz, $3::text)
  ORDER BY d.received_at, d.decision_id
  LIMIT $4
), prunable AS (
  SELECT s.decision_id, s.tenant
  FROM scanned s
  JOIN journal j ON j.final_decision_id = s.decision_id AND j.tenant = s.tenant AND j.recorded_at < now() - make_interval(secs => $1::float8 / 1000)
  WHERE NOT EXISTS (SELECT 1 FROM intents i WHERE i.decision_id = s.decision_id AND i.tenant = s.tenant)
    -- The broker can no longer deliver the message the row guards: not from the topic (a retry),
    -- below its partition's low watermark, or from before offsets were kept and the old rule allows.
    AND (s.source_partition IS NULL OR $9::boolean
         OR (s.source_partition = -1 AND $8::boolean)
         OR EXISTS (SELECT 1 FROM unnest($6::int[], $7::bigint[]) AS w(p, low) WHERE w.p = s.source_partition AND s.source_offset < w.low))
    AND NOT EXISTS (SELECT 1 FROM confirmations c WHERE c.decision_id = s.decision_id AND c.tenant = s.tenant AND c.status = ANY($5::text[]))
    AND NOT EXISTS (SELECT 1 FROM retries r WHERE r.parent_decision_id = s.decision_id AND r.tenant = s.tenant AND r.status = 'pending')
    AND NOT EXISTS (
      SELECT 1 FROM retries r JOIN retries r2 ON r2.chain_id = r.chain_id AND r2.tenant = r.tenant
      WHERE r.decision_id = s.decision_id AND r.tenant = s.tenant
        AND (r2.status = 'pending' OR NOT EXISTS (SELECT 1 FROM journal j2 WHERE j2.final_decision_id = r2.decision_id AND j2.tenant = r2.tenant)))
), gone_inbox AS (
  DELETE FROM decision_inbox d USING prunable p WHERE d.decision_id = p.decision_id AND d.tenant = p.tenant RETURNING 1
), gone_confirmations AS (
  DELETE FROM confirmations c USING prunable p WHERE c.decision_id = p.decision_id AND c.tenant = p.tenant RETURNING 1
), gone_notifications AS (
  -- With their confirmation, in the same statement: a notification row is what stops the enqueue
  -- pass owing it again, and it is only owed while its confirmation waits, which a pruned one no
  -- longer does (open confirmations keep their decision above). This CTE's snapshot still sees the
  -- confirmations deleted beside it.
  DELETE FROM approver_notifications n USING confirmations c, prunable p
  WHERE c.decision_id = p.decision_id AND c.tenant = p.tenant AND n.confirmation_id = c.confirmation_id AND n.tenant = c.tenant RETURNING 1
), gone_retries AS (
  DELETE FROM retries r USING prunable p WHERE r.decision_id = p.decision_id AND r.tenant = p.tenant RETURNING 1
)
SELECT (SELECT count(*) FROM scanned)::int AS scanned,
       (SELECT count(*) FROM prunable)::int AS prunable,
       (SELECT count(*) FROM gone_inbox)::int AS inbox,
       (SELECT count(*) FROM gone_confirmations)::int AS confirmations,
       (SELECT count(*) FROM gone_retries)::int AS retries,
       (SELECT count(*) FROM gone_notifications)::int AS notifications,
       (SELECT received_at::text FROM scanned ORDER BY received_at DESC, decision_id DESC LIMIT 1) AS last_at,
       (SELECT decision_id FROM scanned ORDER BY received_at DESC, decision_id DESC LIMIT 1) AS last_id`;

/**
 * Finished effects that held their idempotency key, once their material is gone and the dedupe
 * window passed. Walked by claim time through the index of key holders (a holder finishes after it
 * is claimed, so the claim-time bound drops none); finishing changes no column of that index.
 */
const KEY_HOLDERS_BATCH = `
DELETE FROM effects WHERE ctid IN (
  SELECT e.ctid FROM effects e
  WHERE e.live_key IS NOT NULL AND e.claimed_at < now() - make_interval(secs => $1::float8 / 1000)
    AND e.holds_key AND e.state = 'effect_completed'
    AND e.finished_at < now() - make_interval(secs => $1::float8 / 1000)
    AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.capability_id = e.capability_id)
  ORDER BY e.claimed_at
  LIMIT $2)`;

interface MaterialRow {
  scanned: number;
  prunable: number;
  horizon: number;
  chains: number;
  effects: number;
  capabilities: number;
  intents: number;
  markers: number;
  last_at: string | null;
  last_id: string | null;
}

interface DedupeRow {
  scanned: number;
  prunable: number;
  inbox: number;
  confirmations: number;
  retries: number;
  notifications: number;
  last_at: string | null;
  last_id: string | null;
}

/**
 * Bounded pruning of the decision tables (ADR 0041). Every batch is one statement in its own
 * transaction; its counts are checked before the commit, so a batch that would delete other than
 * what it selected is rolled back. The journal is never touched. One pruner runs at a time (an
 * advisory lock); a pass stops early when `keepGoing` says so (shutdown).
 */
/** What the decisions topic can still deliver (ADR 0041), read from the broker by the caller. */
export interface DedupeFence {
  /** Each partition's low watermark (log start offset): a message at or above it may be delivered again. */
  lowWatermarks: ReadonlyMap<number, string>;
  /** Rows from before offsets were kept (partition -1): whether the old rule (dedupe window longer than retention.ms) lets them go. */
  legacyRowsMayGo: boolean;
}

export class RetentionPruner {
  constructor(
    private readonly pool: Pool,
    private readonly settings: RetentionSettings,
  ) {}

  /**
   * One pass; null when another process holds the pruner's lock. `dedupe`: a fence (each
   * partition's low watermark: an inbox row is pruned only once its message is below it, so the
   * broker can no longer redeliver it), `false` to keep every dedupe row (the fence could not be
   * read), or `true` for none (a store whose decisions topic is gone: tests, a restore).
   */
  async pruneOnce({ dedupe = true, keepGoing = () => true }: { dedupe?: boolean | DedupeFence; keepGoing?: () => boolean } = {}): Promise<PruneCounts | null> {
    const client = await this.pool.connect();
    try {
      const locked = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [PRUNER_LOCK])).rows[0].ok;
      if (!locked) return null;
      try {
        const counts = { ...NO_PRUNED_ROWS };
        await this.material(client, counts, keepGoing);
        if (dedupe !== false) {
          await this.dedupe(client, counts, keepGoing, dedupe === true ? null : dedupe);
          await this.keyHolders(client, counts, keepGoing);
        }
        return counts;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [PRUNER_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  private async material(client: PoolClient, counts: PruneCounts, keepGoing: () => boolean): Promise<void> {
    const { decisionsMs, batch } = this.settings;
    for (let at = START; keepGoing(); ) {
      const r = await inTransaction(client, MATERIAL_BATCH, [decisionsMs, at.at, at.id, batch, KEEPING_EFFECT_STATES, OPEN_CONFIRMATIONS], (r: MaterialRow) => {
        // Each prunable decision has exactly one intent and one capability; each chain's horizon moves once.
        if (r.intents !== r.prunable || r.capabilities !== r.prunable) return `deleted ${r.intents} intents and ${r.capabilities} capabilities for ${r.prunable} decisions`;
        if (r.horizon !== r.chains) return `retention horizon moved ${r.horizon} times`;
        if (r.markers > r.prunable) return `deleted ${r.markers} body-start markers for ${r.prunable} decisions`;
        return null;
      });
      counts.batches++;
      counts.intents += r.intents;
      counts.capabilities += r.capabilities;
      counts.effects += r.effects;
      counts.markers += r.markers;
      if (r.scanned < batch || r.last_at === null) return;
      at = { at: r.last_at, id: r.last_id! };
    }
  }

  private async dedupe(client: PoolClient, counts: PruneCounts, keepGoing: () => boolean, fence: DedupeFence | null): Promise<void> {
    const { dedupeMs, batch } = this.settings;
    const marks = [...(fence?.lowWatermarks ?? new Map<number, string>())];
    const fenceParams = [marks.map(([p]) => p), marks.map(([, low]) => low), fence?.legacyRowsMayGo ?? true, fence === null];
    for (let at = START; keepGoing(); ) {
      const r = await inTransaction(client, DEDUPE_BATCH, [dedupeMs, at.at, at.id, batch, OPEN_CONFIRMATIONS, ...fenceParams], (r: DedupeRow) =>
        // One inbox row per decision; at most one confirmation and one retry row each, and at most
        // two notifications (parked, expiring) per confirmation.
        r.inbox !== r.prunable || r.confirmations > r.prunable || r.retries > r.prunable || r.notifications > 2 * r.confirmations
          ? `deleted ${r.inbox} inbox rows, ${r.confirmations} confirmations and ${r.notifications} notifications for ${r.prunable} decisions`
          : null,
      );
      counts.batches++;
      counts.inbox += r.inbox;
      counts.confirmations += r.confirmations;
      counts.retries += r.retries;
      counts.notifications += r.notifications;
      if (r.scanned < batch || r.last_at === null) return;
      at = { at: r.last_at, id: r.last_id! };
    }
  }

  private async keyHolders(client: PoolClient, counts: PruneCounts, keepGoing: () => boolean): Promise<void> {
    const { dedupeMs, batch } = this.settings;
    while (keepGoing()) {
      const res = await client.query(KEY_HOLDERS_BATCH, [dedupeMs, batch]);
      counts.batches++;
      counts.effects += res.rowCount ?? 0;
      if ((res.rowCount ?? 0) < batch) return;
    }
  }
}

/** Runs one batch statement in a transaction; commits only if `problem` finds nothing wrong with its counts. */
async function inTransaction<R>(client: PoolClient, sql: string, params: unknown[], problem: (row: R) => string | null): Promise<R> {
  await client.query('BEGIN');
  try {
    const row = (await client.query(sql, params)).rows[0] as R;
    const wrong = problem(row);
    if (wrong) throw new Error(`retention batch rolled back: ${wrong}`);
    await client.query('COMMIT');
    return row;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
