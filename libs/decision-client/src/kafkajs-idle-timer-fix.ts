import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

// kafkajs 2.2.4's request queue keeps two timers going on every connection, busy or idle: one
// re-armed with a negative delay (run after 1 ms) for ever (tulios/kafkajs#1556, #1704), and a
// request-timeout check every 100 ms (ADR 0045 in the repository). The repository patches its own
// install (patches/kafkajs+2.2.4.patch); this package is installed beside kafkajs from the
// registry, unpatched, so it puts the same methods in at load time. Keep the two identical:
// kafkajs-idle-timer-fix.spec.ts runs one scenario table against both.

/** The fields of kafkajs's RequestQueue (src/network/requestQueue/index.js) the method uses. */
interface InflightRequest {
  sentAt: number;
  requestTimeout: number;
  expectResponse: boolean;
  timeoutRequest(): void;
}

interface RequestQueueState {
  pending: unknown[];
  inflight: Map<number, InflightRequest>;
  enforceRequestTimeout: boolean;
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  requestTimeoutIntervalId?: ReturnType<typeof setTimeout> | null;
  requestTimeoutAt?: number;
  isConnected(): boolean;
  checkPendingRequests(): void;
  destroy(): void;
  armRequestTimeout(deadline: number): void;
  checkRequestTimeouts(): void;
}

type Method<A extends unknown[] = []> = (this: RequestQueueState, ...args: A) => void;

export interface RequestQueueClass {
  prototype: {
    scheduleCheckPendingRequests: Method;
    scheduleRequestTimeoutCheck: Method;
    destroy: Method;
    sendSocketRequest: Method<[InflightRequest]>;
    armRequestTimeout?: Method<[number]>;
    checkRequestTimeouts?: Method;
  };
}

/** kafkajs's own poll interval for requests pending without a throttle (CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;
/** sha256 of each replaced `RequestQueue.prototype` method's `toString()` as kafkajs 2.2.4 ships it. */
const SHIPPED_METHOD_SHA256 = {
  scheduleCheckPendingRequests: '04347ea969c6f2e3754427c0cbaee0bd4ce947fbd82f7b6e027506a06dfc581a',
  scheduleRequestTimeoutCheck: '4fa2b60aa0fe28a4fefc028706b8de18cdafc88916fae651d8cc5d359cc4553a',
  destroy: 'eb3e48dc510a13fe9275d693da1c86b02c50c39c6214eabffbb9cdf7b84ac53e',
  sendSocketRequest: '512807ba10f008597cc500bf1255ede4cff0d6336f68dc5565d238a9c656e3ab',
} as const;

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

/**
 * On connect: one timer at the earliest in-flight deadline instead of kafkajs's interval, which
 * woke every 100 ms on every connection for ever. Requests sent later arm it (sendSocketRequest).
 */
export function scheduleRequestTimeoutCheck(this: RequestQueueState): void {
  if (!this.enforceRequestTimeout) return;
  this.destroy();
  this.inflight.forEach((request) => this.armRequestTimeout(request.sentAt + request.requestTimeout));
}

/** Arms the check for `deadline` unless one is already armed for that time or earlier. */
export function armRequestTimeout(this: RequestQueueState, deadline: number): void {
  if (this.requestTimeoutIntervalId != null && (this.requestTimeoutAt ?? Infinity) <= deadline) return;
  clearTimeout(this.requestTimeoutIntervalId ?? undefined);
  this.requestTimeoutAt = deadline;
  this.requestTimeoutIntervalId = setTimeout(() => this.checkRequestTimeouts(), Math.max(0, deadline - Date.now()) + 1);
}

/** Times out what is past its requestTimeout, as kafkajs's interval did, then arms for the next deadline. */
export function checkRequestTimeouts(this: RequestQueueState): void {
  this.requestTimeoutIntervalId = null;
  const now = Date.now();
  let next = Infinity;
  this.inflight.forEach((request) => {
    if (now - request.sentAt > request.requestTimeout) request.timeoutRequest();
    else next = Math.min(next, request.sentAt + request.requestTimeout);
  });
  if (!this.isConnected()) {
    this.destroy();
    return;
  }
  if (next !== Infinity) this.armRequestTimeout(next);
}

/** kafkajs's destroy, with the handle forgotten so that a later send arms a new check. */
export function destroy(this: RequestQueueState): void {
  clearTimeout(this.requestTimeoutIntervalId ?? undefined);
  this.requestTimeoutIntervalId = null;
  clearTimeout(this.throttleCheckTimeoutId ?? undefined);
  this.throttleCheckTimeoutId = null;
}

export type IdleTimerFixOutcome =
  | { replaced: true }
  | { replaced: false; reason: 'not_kafkajs_2_2_4' | 'method_not_as_shipped' };

/** Replaces the methods only in kafkajs 2.2.4 and only if each is the shipped one (not already patched). */
export function replaceIdleTimerLoop(requestQueue: RequestQueueClass, kafkajsVersion: string): IdleTimerFixOutcome {
  if (kafkajsVersion !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  const proto = requestQueue.prototype;
  for (const [name, sha] of Object.entries(SHIPPED_METHOD_SHA256)) {
    const method = proto[name as keyof typeof SHIPPED_METHOD_SHA256];
    if (typeof method !== 'function' || createHash('sha256').update(method.toString()).digest('hex') !== sha) return { replaced: false, reason: 'method_not_as_shipped' };
  }
  const send = proto.sendSocketRequest;
  proto.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  proto.scheduleRequestTimeoutCheck = scheduleRequestTimeoutCheck;
  proto.destroy = destroy;
  proto.armRequestTimeout = armRequestTimeout;
  proto.checkRequestTimeouts = checkRequestTimeouts;
  proto.sendSocketRequest = function (this: RequestQueueState, socketRequest: InflightRequest) {
    send.call(this, socketRequest);
    if (this.enforceRequestTimeout && socketRequest.expectResponse) this.armRequestTimeout(socketRequest.sentAt + socketRequest.requestTimeout);
  };
  return { replaced: true };
}

/** Fixes the kafkajs this package loads: the same copy `import 'kafkajs'` resolves to from here. */
export function fixLoadedKafkajs(): IdleTimerFixOutcome {
  const load = createRequire(__filename);
  const { version } = load('kafkajs/package.json') as { version: string };
  if (version !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  return replaceIdleTimerLoop(load('kafkajs/src/network/requestQueue') as RequestQueueClass, version);
}
