import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

// kafkajs 2.2.4 checks its connections' requests for timeouts with a 100 ms interval per connection
// (RequestQueue.scheduleRequestTimeoutCheck, armed at connect), busy or idle: a process with three
// connections wakes 30 times a second for nothing (ADR 0059). This puts in, at load time, a check
// armed only while requests are in flight, at the earliest one's deadline. Both the apps (through
// @arvis/kafka) and this package, installed beside kafkajs from the registry, call it; a copy not
// as published (patched, or another version) is left alone.

/** What the methods use of kafkajs's SocketRequest (src/network/requestQueue/socketRequest.js). */
interface InflightRequest {
  sentAt: number | null;
  requestTimeout: number;
  timeoutRequest(): void;
}

/** The fields of kafkajs's RequestQueue (src/network/requestQueue/index.js) the methods use. */
interface RequestQueueState {
  enforceRequestTimeout: boolean;
  inflight: Map<number, InflightRequest>;
  isConnected(): boolean;
  requestTimeoutIntervalId?: ReturnType<typeof setTimeout> | null;
  /** Ours: when the armed check fires; undefined while none is armed. */
  requestTimeoutCheckAt?: number;
  /** Ours: from connect (scheduleRequestTimeoutCheck) to destroy. */
  requestTimeoutChecking?: boolean;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
}

type Method = (this: RequestQueueState, ...args: never[]) => void;

export interface RequestTimeoutQueueClass {
  prototype: { scheduleRequestTimeoutCheck: Method; sendSocketRequest: Method; destroy: Method };
}

/** sha256 of each method's `toString()` as kafkajs 2.2.4 ships it. */
const SHIPPED_SHA256 = {
  scheduleRequestTimeoutCheck: '4fa2b60aa0fe28a4fefc028706b8de18cdafc88916fae651d8cc5d359cc4553a',
  sendSocketRequest: '512807ba10f008597cc500bf1255ede4cff0d6336f68dc5565d238a9c656e3ab',
  destroy: 'eb3e48dc510a13fe9275d693da1c86b02c50c39c6214eabffbb9cdf7b84ac53e',
} as const;

/** A request is timed out once `now - sentAt > requestTimeout` (kafkajs's test): 1 ms past. */
const deadlineOf = (r: InflightRequest): number => (r.sentAt === null ? Infinity : r.sentAt + r.requestTimeout + 1);

function disarm(q: RequestQueueState): void {
  if (q.requestTimeoutIntervalId) clearTimeout(q.requestTimeoutIntervalId);
  q.requestTimeoutIntervalId = null;
  q.requestTimeoutCheckAt = undefined;
}

/** One timer at `at`, unless one armed already fires no later. */
function armAt(q: RequestQueueState, at: number): void {
  if (!q.requestTimeoutChecking || at === Infinity) return;
  if (q.requestTimeoutCheckAt !== undefined && q.requestTimeoutCheckAt <= at) return;
  disarm(q);
  q.requestTimeoutCheckAt = at;
  q.requestTimeoutIntervalId = setTimeout(() => check(q), Math.max(0, at - Date.now()));
}

/** kafkajs's interval body, once: time out what is past its deadline, then wait for the next one. */
function check(q: RequestQueueState): void {
  q.requestTimeoutIntervalId = null;
  q.requestTimeoutCheckAt = undefined;
  const now = Date.now();
  q.inflight.forEach((r) => {
    if (r.sentAt !== null && now - r.sentAt > r.requestTimeout) r.timeoutRequest();
  });
  // As kafkajs's interval: a connection found closed stops checking (until it connects again).
  if (!q.isConnected()) return destroy.call(q);
  let next = Infinity;
  q.inflight.forEach((r) => (next = Math.min(next, deadlineOf(r))));
  armAt(q, next);
}

/** At connect: from now on each request sent is checked at its deadline (no timer while none is in flight). */
export function scheduleRequestTimeoutCheck(this: RequestQueueState): void {
  if (!this.enforceRequestTimeout) return;
  destroy.call(this);
  this.requestTimeoutChecking = true;
  let next = Infinity;
  this.inflight.forEach((r) => (next = Math.min(next, deadlineOf(r))));
  armAt(this, next);
}

/** kafkajs 2.2.4's own, then the sent request's deadline armed (O(1) when an earlier check is armed, as under load). */
function sendSocketRequestWith(shipped: Method): Method {
  return function (this: RequestQueueState, ...args: never[]) {
    shipped.apply(this, args);
    const [socketRequest] = args as unknown as [InflightRequest & { correlationId: number }];
    if (this.inflight.get(socketRequest.correlationId) === socketRequest) armAt(this, deadlineOf(socketRequest));
  };
}

export function destroy(this: RequestQueueState): void {
  this.requestTimeoutChecking = false;
  disarm(this);
  clearTimeout(this.throttleCheckTimeoutId ?? undefined);
  this.throttleCheckTimeoutId = null;
}

export type RequestTimeoutFixOutcome = { replaced: true } | { replaced: false; reason: 'not_kafkajs_2_2_4' | 'method_not_as_shipped' };

const sha256 = (f: Method) => createHash('sha256').update(f.toString()).digest('hex');

/** Replaces the three methods only in kafkajs 2.2.4 and only if all three are the shipped ones. */
export function replaceRequestTimeoutInterval(requestQueue: RequestTimeoutQueueClass, kafkajsVersion: string): RequestTimeoutFixOutcome {
  if (kafkajsVersion !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  const p = requestQueue.prototype;
  if (sha256(p.scheduleRequestTimeoutCheck) !== SHIPPED_SHA256.scheduleRequestTimeoutCheck || sha256(p.sendSocketRequest) !== SHIPPED_SHA256.sendSocketRequest || sha256(p.destroy) !== SHIPPED_SHA256.destroy) {
    return { replaced: false, reason: 'method_not_as_shipped' };
  }
  p.sendSocketRequest = sendSocketRequestWith(p.sendSocketRequest);
  p.scheduleRequestTimeoutCheck = scheduleRequestTimeoutCheck;
  p.destroy = destroy;
  return { replaced: true };
}

/** Fixes the kafkajs this module loads: the copy `import 'kafkajs'` resolves to from here. */
export function fixLoadedKafkajsRequestTimeouts(): RequestTimeoutFixOutcome {
  const load = createRequire(__filename);
  const { version } = load('kafkajs/package.json') as { version: string };
  if (version !== '2.2.4') return { replaced: false, reason: 'not_kafkajs_2_2_4' };
  return replaceRequestTimeoutInterval(load('kafkajs/src/network/requestQueue') as RequestTimeoutQueueClass, version);
}
