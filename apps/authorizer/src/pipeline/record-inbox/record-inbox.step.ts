import { Inject, Injectable, Logger } from '@nestjs/common';
import { canonicalJson } from '@arvis/crypto';
import type { OutboxRow } from '@arvis/outbox';
import { InboxStore, type InboxStatus, type ReceivedDecision, type ResumedDecision } from '@arvis/lifecycle';
import type { InsertPart, Tx } from '@arvis/persistence';
import type { Authorization } from '../../policy/authorize-decision/authorization.types';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { scopedKey, storedIdentityOf, tenantOf, type Candidate } from '../decision-pipeline/pipeline.types';
import { decisionDeadLetter } from '../../intake/receive-decisions/decision-dead-letter';

export interface Fresh {
  candidate: Candidate;
  outcome: Authorization;
}

/** Where the message was read: retention keeps the row while the broker can still deliver it. */
const sourceOf = (c: Candidate) => (c.origin.kind === 'message' ? c.origin.message : null);

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

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly inbox: InboxStore,
  ) {}

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
    const rows = this.inbox.receivePart(
      claims.map((f): ReceivedDecision => {
        const c = f.candidate;
        const source = sourceOf(c);
        return {
          decisionId: c.decision.decisionId,
          tenant: tenantOf(c),
          runId: c.decision.runId,
          causalId: c.decision.causalId,
          tool: c.decision.tool,
          bodySha256: c.bodySha256,
          // Without the token (ADR 0035): its SHA-256 and the claims verified from it instead.
          body: c.body ?? canonicalJson(c.decision),
          status: statusOf(f),
          identitySha256: c.identitySha256,
          identityClaims: storedClaimsJson(c),
          sourcePartition: source ? source.partition : null,
          sourceOffset: source ? source.offset : null,
        };
      }),
    );
    await this.inbox.resume(
      tx,
      fresh
        .filter((x) => x.candidate.origin.kind === 'resumed')
        .map((f): ResumedDecision => {
          const c = f.candidate;
          const { confirmationId: _presented, ...asParked } = c.decision;
          return { decisionId: c.decision.decisionId, tenant: tenantOf(c), status: statusOf(f), parkedBody: canonicalJson(asParked), identitySha256: c.identitySha256, identityClaims: storedClaimsJson(c) };
        }),
    );
    return rows;
  }

  conflict(c: Candidate, origin: Extract<Candidate['origin'], { kind: 'message' }>): OutboxRow {
    const d = c.decision;
    const detail = `decision ${d.decisionId} was already received with another body`;
    return decisionDeadLetter(origin.message, this.config.topics.decisionsDlq, { reasonCode: 'decision_conflict', detail, decisionId: d.decisionId }, origin.receivedAt, this.config.dlq.maxRawBytes);
  }
}
