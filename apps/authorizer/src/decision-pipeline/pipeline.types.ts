import type { InboundMessage } from '@arvis/kafka';
import type { OutboxRow } from '@arvis/outbox';
import type { Tx } from '@arvis/persistence';
import type { Decision } from '../authorize-decision/authorization.types';
import type { IdentityResult } from '../verify-identity/verify-identity.service';

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
  bodySha256: string;
  /** The token as verified at intake (messages); others are verified by policy. */
  identity?: IdentityResult;
}

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
