import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { replaceIdleTimerLoop, type RequestQueueClass } from './kafkajs-idle-timer-fix';

// The repository's kafkajs (patched by patches/kafkajs+2.2.4.patch at npm ci) and a copy of kafkajs
// 2.2.4 as published (the patch reversed) with the method this package puts in at load time: one
// scenario table for both, so the two copies of the fix cannot drift apart.
interface Queue {
  push(r: { entry: Record<string, unknown>; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number | null): void;
  scheduleCheckPendingRequests(): void;
}
type QueueClass = RequestQueueClass & (new (opts: Record<string, unknown>) => Queue);

const ROOT = join(__dirname, '..', '..', '..');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
let shippedDir: string;
const load = (dir: string) => jest.requireActual<QueueClass>(join(dir, 'src', 'network', 'requestQueue'));
const patched = () => load(dirname(require.resolve('kafkajs/package.json')));
const shipped = () => load(join(shippedDir, 'node_modules', 'kafkajs'));
/** A subclass, so the shipped class itself stays as published for the other specs. */
const fixedCopy = (version = '2.2.4') => {
  const Fixed = class extends shipped() {};
  return { Fixed, outcome: replaceIdleTimerLoop(Fixed, version) };
};

beforeAll(() => {
  shippedDir = mkdtempSync(join(tmpdir(), 'kafkajs-2.2.4-'));
  cpSync(dirname(require.resolve('kafkajs/package.json')), join(shippedDir, 'node_modules', 'kafkajs'), { recursive: true });
  execFileSync('git', ['apply', '--reverse', join(ROOT, 'patches', 'kafkajs+2.2.4.patch')], { cwd: shippedDir });
});
afterAll(() => rmSync(shippedDir, { recursive: true, force: true }));
beforeEach(() => jest.useFakeTimers({ now: 1_700_000_000_000 }));
afterEach(() => jest.useRealTimers());

function queueOf(Queue: QueueClass, maxInFlightRequests: number | null = null) {
  const q = new Queue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'spec', broker: 'b:9092', logger: quiet });
  const sent: number[] = [];
  let next = 0;
  const send = () => {
    const correlationId = next++;
    q.push({
      entry: { correlationId, apiKey: 0, apiName: 'Produce', apiVersion: 3, resolve() {}, reject() {} },
      expectResponse: true,
      sendRequest: () => sent.push(correlationId),
    });
    return correlationId;
  };
  const answer = (correlationId: number, throttleMs: number | null = null) => {
    q.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
    q.maybeThrottle(throttleMs); // kafkajs's connection applies the throttle after decoding the answer
  };
  return { sent, send, answer };
}

describe('kafkajs 2.2.4 as published', () => {
  it('keeps a timer armed after its only request was answered: the idle loop being fixed', () => {
    const { send, answer } = queueOf(shipped());
    answer(send());
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('gets the fixed method only while it is the shipped one and the version is 2.2.4', () => {
    expect(replaceIdleTimerLoop(patched(), '2.2.4')).toEqual({ replaced: false, reason: 'method_not_as_shipped' });
    expect(fixedCopy('2.2.5').outcome).toEqual({ replaced: false, reason: 'not_kafkajs_2_2_4' });
    const { Fixed, outcome } = fixedCopy();
    expect(outcome).toEqual({ replaced: true });
    expect(replaceIdleTimerLoop(Fixed, '2.2.4')).toEqual({ replaced: false, reason: 'method_not_as_shipped' });
  });
});

describe.each([
  ['the repository patch (node_modules)', patched],
  ['the method the packed client puts in', () => fixedCopy().Fixed],
])('request queue with %s', (_, queueClass) => {
  it('arms no timer while idle, before or after a request', () => {
    const { send, answer, sent } = queueOf(queueClass());
    expect(jest.getTimerCount()).toBe(0);
    answer(send());
    expect(sent).toEqual([0]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('holds requests for the broker throttle time, sends them when it ends, then arms nothing', () => {
    const { send, answer, sent } = queueOf(queueClass());
    answer(send(), 500);
    send();
    send();
    expect(sent).toEqual([0]);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(499);
    expect(sent).toEqual([0]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([0, 1, 2]);
    answer(1);
    answer(2);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('follows a throttle lengthened while a check is armed', () => {
    const { send, answer, sent } = queueOf(queueClass(), 2);
    const first = send();
    answer(send(), 100);
    send();
    answer(first, 300);
    jest.advanceTimersByTime(299);
    expect(sent).toEqual([0, 1]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([0, 1, 2]);
  });

  it('sends a request held by the in-flight limit when one completes, and polls only while it waits', () => {
    const { send, answer, sent } = queueOf(queueClass(), 1);
    const first = send();
    send();
    expect(sent).toEqual([0]);
    expect(jest.getTimerCount()).toBe(1);
    answer(first);
    expect(sent).toEqual([0, 1]);
    jest.advanceTimersByTime(10); // the 10 ms poll armed while it waited finds nothing left
    expect(jest.getTimerCount()).toBe(0);
  });
});
