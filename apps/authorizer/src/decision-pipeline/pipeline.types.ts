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
  /** The source's own bookkeeping, in the same transaction (a worker claims its rows). */
  acknowledge?: (tx: Tx) => Promise<void>;
}

export interface BatchOutcome {
  authorized: number;
  refused: number;
  parked: number;
  redelivered: number;
  deadLettered: number;
}
