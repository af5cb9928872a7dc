import type { InboundMessage } from './kafka-client';

/** A message whose handling failed every time, with the last failure. */
export interface IsolatedMessage {
  message: InboundMessage;
  error: Error;
  attempts: number;
}

export interface SettleOptions {
  /** Handles a run of messages (one transaction); rejects on failure. */
  handle: (messages: InboundMessage[]) => Promise<void>;
  /** Records a message that failed every time, so the consumer can move past it. */
  isolate: (isolated: IsolatedMessage) => Promise<void>;
  isTransient: (error: unknown) => boolean;
  /** Attempts at a single message before it is isolated (a slice of several gets one, then halves). */
  maxAttempts: number;
  /** Stop waiting: the consumer is closing or lost the partition; the slice stays uncommitted. */
  stopped: () => boolean;
  pause: (attempt: number) => Promise<void>;
  onRetry?: (info: { messages: InboundMessage[]; attempt: number; error: Error; transient: boolean }) => void;
}

export class SettleStopped extends Error {
  constructor() {
    super('stopped while a slice was unsettled');
  }
}

/**
 * Settles a slice: handled as a whole when it can be; when it fails for a reason that is not
 * transient, its halves are retried, recursively, until the single message that fails every
 * time is found and isolated, and the others are handled. A transient fault (database or
 * broker down) is waited out for as long as it lasts, never counted as the message's failure.
 */
export async function settleSlice(messages: InboundMessage[], opts: SettleOptions): Promise<void> {
  const limit = messages.length === 1 ? opts.maxAttempts : 1;
  const error = await attempt(messages, limit, opts);
  if (error === null) return;
  if (messages.length > 1) {
    const middle = Math.ceil(messages.length / 2);
    await settleSlice(messages.slice(0, middle), opts);
    await settleSlice(messages.slice(middle), opts);
    return;
  }
  await untilDone(() => opts.isolate({ message: messages[0], error, attempts: limit }), opts);
}

/** Null once handled; the last error once `limit` non-transient failures were seen. */
async function attempt(messages: InboundMessage[], limit: number, opts: SettleOptions): Promise<Error | null> {
  let failures = 0;
  for (let tries = 1; ; tries++) {
    if (opts.stopped()) throw new SettleStopped();
    try {
      await opts.handle(messages);
      return null;
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      const transient = opts.isTransient(e);
      if (!transient) failures += 1;
      if (!transient && failures >= limit) return error;
      opts.onRetry?.({ messages, attempt: tries, error, transient });
      await opts.pause(tries);
    }
  }
}

/** Isolation must land too; it only waits (transient or not) until it does or we stop. */
async function untilDone(work: () => Promise<void>, opts: SettleOptions): Promise<void> {
  for (let tries = 1; ; tries++) {
    if (opts.stopped()) throw new SettleStopped();
    try {
      await work();
      return;
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      opts.onRetry?.({ messages: [], attempt: tries, error, transient: opts.isTransient(e) });
      await opts.pause(tries);
    }
  }
}
