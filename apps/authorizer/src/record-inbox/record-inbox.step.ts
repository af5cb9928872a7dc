import { Inject, Injectable, Logger } from '@nestjs/common';
import { canonicalJson } from '@arvis/crypto';
import type { OutboxRow } from '@arvis/outbox';
import { rowsPart, type ColumnMap, type InsertPart, type Tx } from '@arvis/persistence';
import type { Authorization } from '../authorize-decision/authorization.types';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { scopedKey, storedIdentityOf, tenantOf, type Candidate } from '../decision-pipeline/pipeline.types';
import { decisionDeadLetter } from '../receive-decisions/decision-dead-letter';

export interface Fresh {
  candidate: Candidate;
  outcome: Authorization;
}

export type InboxStatus = 'authorized' | 'refused' | 'parked';

const INBOX_COLUMNS: ColumnMap<{ c: Candidate; status: InboxStatus }> = {
  decision_id: ['text', (x) => x.c.decision.decisionId],
  tenant: ['text', (x) => tenantOf(x.c)],
  run_id: ['text', (x) => x.c.decision.runId],
  causal_id: ['text', (x) => x.c.decision.causalId],
  tool: ['text', (x) => x.c.decision.tool],
  body_sha256: ['text', (x) => x.c.bodySha256],
  // Without the token (ADR 0035): its SHA-256 and the claims verified from it instead.
  body: ['text', (x) => x.c.body ?? canonicalJson(x.c.decision)],
  status: ['text', (x) => x.status],
  identity_sha256: ['text', (x) => x.c.identitySha256],
  identity_claims: ['jsonb', (x) => storedClaimsJson(x.c)],
  // Where the message was read: retention keeps the row while the broker can still deliver it.
  source_partition: ['bigint', (x) => (x.c.origin.kind === 'message' ? x.c.origin.message.partition : null)],
  source_offset: ['bigint', (x) => (x.c.origin.kind === 'message' ? x.c.origin.message.offset : null)],
};

const storedClaimsJson = (c: Candidate): string | null => {
  const stored = storedIdentityOf(c);
  return stored ? JSON.stringify(stored) : null;
};

/**
 * The decision inbox (ADR 0002): which candidates are new, which are redeliveries (same id, same
 * body: nothing happens) and which conflict (same id, another body: a dead letter); then, once
 * their outcome is known, one row per new decision, or a resumed decision's row moved on.
 */
@Injectable()
export class RecordInboxStep {
  private readonly log = new Logger(RecordInboxStep.name);

  constructor(@Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig) {}

  /** `known`: body hashes of the inbox rows of the slice's decision ids (by `scopedKey`), from the slice's read statement. */
  sort(candidates: Candidate[], known: ReadonlyMap<string, string>): { fresh: Candidate[]; redelivered: number; conflicts: OutboxRow[] } {
    const fresh: Candidate[] = [];
    const conflicts: OutboxRow[] = [];
    let redelivered = 0;
    for (const c of candidates) {
      const prior = c.origin.kind === 'resumed' ? undefined : known.get(scopedKey(tenantOf(c), c.decision.decisionId));
      if (prior === undefined) fresh.push(c);
      else if (prior === c.bodySha256) redelivered++;
      else if (c.origin.kind === 'message') conflicts.push(this.conflict(c, c.origin));
      else this.log.error({ msg: 'system decision conflicts with a stored one; not submitted again', decisionId: c.decision.decisionId, runId: c.decision.runId, tenant: tenantOf(c) });
    }
    return { fresh, redelivered, conflicts };
  }

  /**
   * `statusOf` is the decision's outcome after admission and the intent sink. A resumed decision's
   * row moves here; the new rows are returned, for the slice's one insert statement (ADR 0083).
   */
  async write(tx: Tx, fresh: Fresh[], statusOf: (f: Fresh) => InboxStatus): Promise<InsertPart> {
    // A concurrent consumer of the same partition (after a rebalance) conflicts on the primary
    // key where these rows go in and the whole slice retries, then sees them as redeliveries.
    const claims = fresh.filter((f) => f.candidate.origin.kind !== 'resumed');
    const rows = rowsPart('decision_inbox', INBOX_COLUMNS, claims.map((f) => ({ c: f.candidate, status: statusOf(f) })));
    for (const f of fresh.filter((x) => x.candidate.origin.kind === 'resumed')) {
      // A row parked before ADR 0035 loses its token here, and keeps the claims verified from it.
      const c = f.candidate;
      const { confirmationId: _presented, ...asParked } = c.decision;
      const moved = await tx.$executeRaw`
        UPDATE decision_inbox SET status = ${statusOf(f)}, body = CASE WHEN identity_claims IS NULL THEN ${canonicalJson(asParked)} ELSE body END,
               identity_sha256 = coalesce(identity_sha256, ${c.identitySha256}), identity_claims = coalesce(identity_claims, ${storedClaimsJson(c)}::jsonb)
        WHERE decision_id = ${c.decision.decisionId} AND tenant = ${tenantOf(c)} AND status = 'parked'`;
      if (moved !== 1) throw new Error(`parked decision ${c.decision.decisionId} was not parked any more`);
    }
    return rows;
  }

  conflict(c: Candidate, origin: Extract<Candidate['origin'], { kind: 'message' }>): OutboxRow {
    const d = c.decision;
    const detail = `decision ${d.decisionId} was already received with another body`;
    return decisionDeadLetter(origin.message, this.config.topics.decisionsDlq, { reasonCode: 'decision_conflict', detail, decisionId: d.decisionId }, origin.receivedAt, this.config.dlq.maxRawBytes);
  }
}
