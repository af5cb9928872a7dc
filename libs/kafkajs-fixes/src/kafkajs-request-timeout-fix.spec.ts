import { dirname, join } from 'node:path';
import { replaceRequestTimeoutInterval, type RequestTimeoutQueueClass } from './kafkajs-request-timeout-fix';

// kafkajs's RequestQueue as this repository installs it (its request-timeout methods are as
// published: patches/kafkajs+2.2.4.patch changes another method), in a subclass per test so the
// installed class stays as it is for the other specs.
interface Queue {
  push(r: { entry: Record<string, unknown>; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
  scheduleRequestTimeoutCheck(): void;
  sendSocketRequest(r: unknown): void;
  destroy(): void;
}
type QueueClass = RequestTimeoutQueueClass & (new (opts: Record<string, unknown>) => Queue);

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const installed = () => jest.requireActual<QueueClass>(join(dirname(require.resolve('kafkajs/package.json')), 'src', 'network', 'requestQueue'));
const copy = () => class extends installed() {};
const fixed = () => {
  const Fixed = copy();
  expect(replaceRequestTimeoutInterval(Fixed, '2.2.4')).toEqual({ replaced: true });
  return Fixed;
};

beforeEach(() => jest.useFakeTimers({ now: 1_700_000_000_000 }));
afterEach(() => jest.useRealTimers());

/** A connected queue (its connection's onConnect ran), with a 30 s request timeout. */
function connectedQueue(Queue: QueueClass) {
  let connected = true;
  const q = new Queue({ maxInFlightRequests: null, requestTimeout: 30_000, enforceRequestTimeout: true, clientId: 'spec', broker: 'b:9092', logger: quiet, isConnected: () => connected });
  q.scheduleRequestTimeoutCheck();
  const outcome = new Map<number, string>();
  let next = 0;
  const send = () => {
    const correlationId = next++;
    q.push({
      entry: { correlationId, apiKey: 0, apiName: 'Produce', apiVersion: 3, resolve: () => outcome.set(correlationId, 'answered'), reject: (e: Error) => outcome.set(correlationId, e.name) },
      expectResponse: true,
      sendRequest: () => undefined,
    });
    return correlationId;
  };
  const answer = (correlationId: number) => q.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
  return { q, send, answer, outcome, disconnect: () => (connected = false) };
}

describe('kafkajs 2.2.4 request-timeout check', () => {
  it('as published, wakes every 100 ms on an idle connection: the loop being fixed', () => {
    connectedQueue(copy());
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('fixed, arms nothing on an idle connection, before or after a request', () => {
    const { send, answer, outcome } = connectedQueue(fixed());
    expect(jest.getTimerCount()).toBe(0);
    const id = send();
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(5_000);
    answer(id);
    expect(outcome.get(id)).toBe('answered');
    // The check armed for that request's deadline fires once, finds nothing in flight, and stops.
    jest.advanceTimersByTime(30_000);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('times a request out at its deadline, as the 100 ms interval did (within its 100 ms)', () => {
    const { send, outcome } = connectedQueue(fixed());
    const id = send();
    jest.advanceTimersByTime(30_000);
    expect(outcome.has(id)).toBe(false);
    jest.advanceTimersByTime(1);
    expect(outcome.get(id)).toBe('KafkaJSRequestTimeoutError');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps one timer for many requests in flight, and checks each at its own deadline', () => {
    const { send, answer, outcome } = connectedQueue(fixed());
    const first = send();
    jest.advanceTimersByTime(10_000);
    const second = send();
    const third = send();
    expect(jest.getTimerCount()).toBe(1);
    answer(third);
    jest.advanceTimersByTime(20_001);
    expect(outcome.get(first)).toBe('KafkaJSRequestTimeoutError');
    expect(outcome.has(second)).toBe(false);
    jest.advanceTimersByTime(10_000);
    expect(outcome.get(second)).toBe('KafkaJSRequestTimeoutError');
    expect(outcome.get(third)).toBe('answered');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops checking on a closed connection (destroy, or found closed) until it connects again', () => {
    const { q, send, disconnect, outcome } = connectedQueue(fixed());
    send();
    q.destroy();
    expect(jest.getTimerCount()).toBe(0);
    q.scheduleRequestTimeoutCheck();
    expect(jest.getTimerCount()).toBe(1);
    disconnect();
    jest.advanceTimersByTime(30_001);
    expect(outcome.get(0)).toBe('KafkaJSRequestTimeoutError');
    send();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('replaces the methods only in 2.2.4 and only while they are the shipped ones', () => {
    expect(replaceRequestTimeoutInterval(copy(), '2.2.5')).toEqual({ replaced: false, reason: 'not_kafkajs_2_2_4' });
    expect(replaceRequestTimeoutInterval(fixed(), '2.2.4')).toEqual({ replaced: false, reason: 'method_not_as_shipped' });
  });
});
