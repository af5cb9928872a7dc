import type { InboundMessage } from '@arvis/kafka';
import type { OutboxRow } from '@arvis/outbox';
import type { Tx } from '@arvis/persistence';
import { UNKNOWN_TENANT, type Decision } from '../../policy/authorize-decision/authorization.types';
import type { StoredIdentity } from '../../policy/verify-identity/stored-identity';
import type { IdentityResult } from '../../policy/verify-identity/verify-identity.service';

/**
 * Where a decision came from, which fixes the inbox transition it makes: a message claims a new
 * inbox row (or is a redelivery, or a conflict), a retry claims a new row, a resumed decision
 * moves its own row on from `parked`.
 */
export type Origin =
  | { kind: 'message'; message: InboundMessage; receivedAt: Date }
  | { kind: 'retry' }
  | { kind: 'resumed'; confirmationId: string };

/** A decision ready for policy. */
export interface Candidate {
  origin: Origin;
  decision: Decision;
  /** Of the decision as received (token included), so a redelivery is told from a conflict. */
  bodySha256: string;
  /** The decision's canonical text (without the token), when intake computed it: the inbox row's body. */
  body?: string;
  /** The token as verified at intake (messages); the token itself goes no further (ADR 0035). */
  identity?: IdentityResult;
  /** The claims kept for a decision the system submits again (a retry, a resumed confirmation), re-checked by policy and admission. */
  stored?: StoredIdentity;
  /** SHA-256 of the token the decision came with (what the inbox keeps in its place); null if none is known. */
  identitySha256: string | null;
}

/** The verified claims a candidate brings, when it has them: what the inbox keeps. */
export const storedIdentityOf = (c: Candidate): StoredIdentity | null => c.stored ?? (c.identity?.ok ? c.identity.stored : null);

/**
 * The tenant a candidate's ids are scoped by (ADR 0061): the verified one, the one kept for a
 * decision the system submits again, or the tenant a refusal without identity is recorded under.
 */
export const tenantOf = (c: Pick<Candidate, 'identity' | 'stored'>): string => (c.identity?.ok ? c.identity.identity.tenant : c.stored?.tenant) ?? UNKNOWN_TENANT;

/** A tenant's decision id as one map key, unambiguous whatever either contains. */
export const scopedKey = (tenant: string, decisionId: string): string => JSON.stringify([tenant, decisionId]);

/** What every caller hands the pipeline: the consumer, the resume worker, the retry worker. */
export interface PipelineInput {
  candidates: Candidate[];
  /** Dead letters found while reading; committed with the outcome. */
  deadLetters: OutboxRow[];
  /**
   * A worker's claim on its rows, first in the transaction: locks what it can (`FOR UPDATE SKIP
   * LOCKED`) and says which candidates are its own; the others belong to a worker that raced it
   * and are left out, untouched.
   */
  claim?: (tx: Tx) => Promise<(c: Candidate) => boolean>;
  /** The source's own bookkeeping, last in the same transaction (a worker marks its rows done). */
  acknowledge?: (tx: Tx, handled: Candidate[]) => Promise<void>;
}

export interface BatchOutcome {
  authorized: number;
  refused: number;
  parked: number;
  redelivered: number;
  deadLettered: number;
}
