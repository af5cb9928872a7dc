import type { IntentMessage, ReasonCode } from '@arvis/contracts';
import type { InsertPart, Tx } from '@arvis/persistence';
import type { Authorized } from '../../policy/authorize-decision/authorization.types';
import type { TraceOf } from '../decision-pipeline/decision-traces';

/** A decision whose intent could not be recorded: its capability is revoked, nothing is published. */
export interface AbortedIntent {
  authorized: Authorized;
  reasonCode: ReasonCode;
  detail: string;
  receiptReason?: string;
}

export interface CommitResult {
  messages: IntentMessage[];
  aborted: AbortedIntent[];
  /**
   * The recorded intents' rows (with their messages' outbox rows) and capabilities' rows, for the
   * slice's one insert statement with its inbox and outbox rows (ADR 0083); empty when `isolate`
   * is true (each went in under its savepoint).
   */
  inserts: InsertPart[];
}

/** Thrown from the bulk path so the caller retries the slice with one savepoint per intent. */
export class IntentSinkError extends Error {
  constructor(override readonly cause: unknown) {
    super(`intent sink failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'IntentSinkError';
  }
}

/**
 * The intent sink as the decision pipeline calls it (ADR 0005). CommitIntentService is the sink;
 * in the test profile (fault points configured) PipelineModule binds TamperingIntentSink
 * (fault-points/) instead, which decorates it with the sink's faults. Production never does.
 */
export abstract class IntentSink {
  /**
   * `isolate` false: one multi-row insert per table (the hot path), the outbox rows handed back;
   * any failure throws IntentSinkError and the caller retries the slice with `isolate` true,
   * where each intent has its own savepoint and a failure aborts that decision only.
   * `positions`: outbox sequence numbers the slice's read statement reserved, in order.
   */
  abstract commit(tx: Tx, authorized: Authorized[], at: { committedAt: Date; positions: readonly bigint[] }, isolate: boolean, traceOf?: TraceOf): Promise<CommitResult>;

  /** minted -> revoked for every aborted intent: the capability exists, and can never run. */
  abstract revokeWithoutIntent(tx: Tx, aborted: AbortedIntent[]): Promise<void>;
}
