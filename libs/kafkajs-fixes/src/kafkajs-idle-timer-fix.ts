import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

// kafkajs 2.2.4's request queue re-arms a timer with a negative delay (run after 1 ms) for ever on
// every connection, busy or idle (tulios/kafkajs#1556, #1704; ADR 0045 in the repository). The
// repository patches its own install (patches/kafkajs+2.2.4.patch); this package is installed
// beside kafkajs from the registry, unpatched, so it puts the same method in at load time. Keep
// the two identical: kafkajs-idle-timer-fix.spec.ts runs one scenario table against both.

/** The fields of kafkajs's RequestQueue (src/network/requestQueue/index.js) the method uses. */
interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
}

export interface RequestQueueClass {
  prototype: { scheduleCheckPendingRequests: (this: RequestQueueState) => void };
}

/** kafkajs's own poll interval for requests pending without a throttle (CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;
/** sha256 of `RequestQueue.prototype.scheduleCheckPendingRequests.toString()` as kafkajs 2.2.4 ships it. */
const SHIPPED_METHOD_SHA256 = '04347ea969c6f2e3754427c0cbaee0bd4ce947fbd82f7b6e027506a06dfc581a';

/**
 * A timer only while requests wait: at the end of the broker's throttle (throttle_time_ms), or in
 * 10 ms if that is already over. Requests held back by the in-flight limit are also sent when an
 * in-flight one completes (fulfillRequest); a request enqueued later schedules its own check.
 */
export function scheduleCheckPendingRequests(this: RequestQueueState): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  const scheduleAt = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, scheduleAt);
}

export type IdleTimerFixOutcome =
  | { replaced: true }
  | { replaced: false; reason: 'not_kafkajs_2_2_4' | 'method_not_as_shipped' };

/** Replaces the method only in kafkajs 2.2.4 and only if it is the shipped one (not already patched). */
export function replaceIdleTimerLoop(requestQueue: RequestQueueClass, kafkajsVersion: string): IdleTimerFixOutcome {
  if (kafkajsVersion !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  const shipped = createHash('sha256').update(requestQueue.prototype.scheduleCheckPendingRequests.toString()).digest('hex');
  if (shipped !== SHIPPED_METHOD_SHA256) return { replaced: false, reason: 'method_not_as_shipped' };
  requestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return { replaced: true };
}

/** Fixes the kafkajs this package loads: the same copy `import 'kafkajs'` resolves to from here. */
export function fixLoadedKafkajs(): IdleTimerFixOutcome {
  const load = createRequire(__filename);
  const { version } = load('kafkajs/package.json') as { version: string };
  if (version !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  return replaceIdleTimerLoop(load('kafkajs/src/network/requestQueue') as RequestQueueClass, version);
}
