import { Injectable } from '@nestjs/common';
import { rowsPart, type ColumnMap, type InsertPart } from '@arvis/persistence';
import type { Sql } from './sql';

/** A decision's inbox status: its outcome, or parked until its confirmation is resumed or closed. */
export type InboxStatus = 'authorized' | 'refused' | 'parked';

/**
 * A decision's inbox row as received, without its token (ADR 0035): the token's SHA-256 and the
 * claims verified from it are kept instead.
 */
export interface ReceivedDecision {
  decisionId: string;
  tenant: string;
  runId: string;
  causalId: string;
  tool: string;
  /** Of the decision as received (token included), so a redelivery is told from a conflict. */
  bodySha256: string;
  /** The decision's canonical text, without the token. */
  body: string;
  status: InboxStatus;
  identitySha256: string | null;
  /** The verified claims kept (JSON), or null. */
  identityClaims: string | null;
  /** Where the message was read (null for a decision not read from the topic): retention keeps the row while the broker can still deliver it. */
  sourcePartition: number | null;
  sourceOffset: string | null;
}

/** A parked decision carried on by its confirmation: its outcome now, and what its row keeps. */
export interface ResumedDecision {
  decisionId: string;
  tenant: string;
  status: InboxStatus;
  /** The decision as parked (canonical, without the presented confirmation id): the body of a row parked before ADR 0035. */
  parkedBody: string;
  identitySha256: string | null;
  /** The verified claims (JSON), or null. */
  identityClaims: string | null;
}

/** The inbox row of a decision isolated after failing every time (ADR 0001): refused, with where its message was read. */
export interface IsolatedDecision {
  decisionId: string;
  tenant: string;
  runId: string;
  causalId: string;
  tool: string;
  bodySha256: string;
  body: string;
  identitySha256: string;
  /** The verified claims (JSON). */
  identityClaims: string;
  sourcePartition: number;
  sourceOffset: string;
}

const RECEIVED_COLUMNS: ColumnMap<ReceivedDecision> = {
  decision_id: ['text', (r) => r.decisionId],
  tenant: ['text', (r) => r.tenant],
  run_id: ['text', (r) => r.runId],
  causal_id: ['text', (r) => r.causalId],
  tool: ['text', (r) => r.tool],
  body_sha256: ['text', (r) => r.bodySha256],
  body: ['text', (r) => r.body],
  status: ['text', (r) => r.status],
  identity_sha256: ['text', (r) => r.identitySha256],
  identity_claims: ['jsonb', (r) => r.identityClaims],
  source_partition: ['bigint', (r) => r.sourcePartition],
  source_offset: ['bigint', (r) => r.sourceOffset],
};

/**
 * The only writer of `decision_inbox` (ADR 0002, 0087): a decision's id is claimed once, by a new
 * row (authorized, refused or parked); a parked row moves on once, when its confirmation is
 * resumed (authorized or refused) or closed (refused). Retention deletes rows past the dedupe
 * window (ADR 0041, retention-pruner.ts). Statements are moved here verbatim, whitespace
 * included: a statement's text names its prepared statement.
 */
@Injectable()
export class InboxStore {
  /**
   * New rows as a part of the authorizer slice's one INSERT (insertParts, ADR 0083). A concurrent
   * consumer of the same partition (after a rebalance) conflicts on the primary key where these
   * rows go in and the whole slice retries, then sees them as redeliveries.
   */
  receivePart(rows: readonly ReceivedDecision[]): InsertPart {
    return rowsPart('decision_inbox', RECEIVED_COLUMNS, rows);
  }

  /**
   * parked -> the resumed decision's outcome, each row on its own; every one must move. A row
   * parked before ADR 0035 loses its token here, and keeps the claims verified from it.
   */
  async resume(tx: Sql, resumed: readonly ResumedDecision[]): Promise<void> {
    for (const r of resumed) {
      const moved = await tx.$executeRaw`
        UPDATE decision_inbox SET status = ${r.status}, body = CASE WHEN identity_claims IS NULL THEN ${r.parkedBody} ELSE body END,
               identity_sha256 = coalesce(identity_sha256, ${r.identitySha256}), identity_claims = coalesce(identity_claims, ${r.identityClaims}::jsonb)
        WHERE decision_id = ${r.decisionId} AND tenant = ${r.tenant} AND status = 'parked'`;
      if (moved !== 1) throw new Error(`parked decision ${r.decisionId} was not parked any more`);
    }
  }

  /** parked -> refused, for decisions whose confirmation was denied or expired; every one must move. */
  async refuseParked(tx: Sql, closing: readonly { decisionId: string; tenant: string }[]): Promise<void> {
    const moved = await tx.$executeRaw`
        UPDATE decision_inbox SET status = 'refused'
        WHERE (decision_id, tenant) IN (SELECT * FROM unnest(${closing.map((c) => c.decisionId)}::text[], ${closing.map((c) => c.tenant)}::text[])) AND status = 'parked'`;
    if (moved !== closing.length) throw new Error(`closed ${moved} of ${closing.length} parked decisions`);
  }

  /**
   * An isolated decision's row, refused, unless its id is already claimed (this decision handled
   * before, or another body): true when this call claimed it, and only then does it journal.
   */
  async isolate(tx: Sql, d: IsolatedDecision): Promise<boolean> {
    const claimed = await tx.$executeRaw`
      INSERT INTO decision_inbox (decision_id, tenant, run_id, causal_id, tool, body_sha256, body, status, identity_sha256, identity_claims, source_partition, source_offset)
      VALUES (${d.decisionId}, ${d.tenant}, ${d.runId}, ${d.causalId}, ${d.tool}, ${d.bodySha256}, ${d.body}, 'refused',
              ${d.identitySha256}, ${d.identityClaims}::jsonb, ${d.sourcePartition}::int, ${d.sourceOffset}::bigint)
      ON CONFLICT (decision_id, tenant) DO NOTHING`;
    return claimed === 1;
  }
}
