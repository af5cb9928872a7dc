import type { InboundMessage } from './kafka-client';
import { settleSlice, SettleStopped, type IsolatedMessage, type SettleOptions } from './settle-slice';

const message = (offset: number): InboundMessage => ({
  topic: 't',
  partition: 0,
  offset: String(offset),
  key: 'k',
  value: Buffer.from(String(offset)),
  headers: {},
  timestamp: '0',
});
const slice = (n: number) => Array.from({ length: n }, (_, i) => message(i));
const offsets = (ms: InboundMessage[]) => ms.map((m) => Number(m.offset));

class Transient extends Error {}

/** A handler that fails (as one transaction) whenever its run holds a poisoned offset. */
function world(poisoned: number[], opts: Partial<SettleOptions> = {}) {
  const handled: number[] = [];
  const isolated: IsolatedMessage[] = [];
  const calls: number[][] = [];
  const options: SettleOptions = {
    handle: async (ms) => {
      calls.push(offsets(ms));
      if (ms.some((m) => poisoned.includes(Number(m.offset)))) throw new Error(`poison in ${offsets(ms).join(',')}`);
      handled.push(...offsets(ms));
    },
    isolate: async (x) => {
      isolated.push(x);
    },
    isTransient: (e) => e instanceof Transient,
    maxAttempts: 3,
    stopped: () => false,
    pause: async () => undefined,
    ...opts,
  };
  return { handled, isolated, calls, options };
}

describe('settleSlice', () => {
  it('handles a good slice in one call', async () => {
    const w = world([]);
    await settleSlice(slice(8), w.options);
    expect(w.calls).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
    expect(w.isolated).toEqual([]);
  });

  it('bisects down to the one message that always fails, isolates it, and handles every other message once', async () => {
    const w = world([5]);
    await settleSlice(slice(8), w.options);
    expect(w.handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7]);
    expect(w.isolated.map((x) => [offsets([x.message])[0], x.attempts, x.error.message])).toEqual([[5, 3, 'poison in 5']]);
    // 8 -> 4+4 -> 2+2 -> 1+1, and the poisoned single message three times.
    expect(w.calls.filter((c) => c.length === 1 && c[0] === 5)).toHaveLength(3);
  });

  it('isolates several failing messages, each on its own, keeping offset order for the rest', async () => {
    const w = world([0, 3, 4, 9]);
    await settleSlice(slice(10), w.options);
    expect(w.handled).toEqual([1, 2, 5, 6, 7, 8]);
    expect(w.isolated.map((x) => Number(x.message.offset))).toEqual([0, 3, 4, 9]);
  });

  it('retries a single message before isolating it, so a failure that goes away is not isolated', async () => {
    let failures = 0;
    const w = world([]);
    w.options.handle = async (ms) => {
      if (failures++ < 2) throw new Error('unique violation: a rebalanced consumer got there first');
      w.handled.push(...offsets(ms));
    };
    await settleSlice(slice(1), w.options);
    expect([w.handled, w.isolated]).toEqual([[0], []]);
  });

  it('waits out a transient fault for as long as it lasts, without isolating or splitting', async () => {
    let outage = 25;
    const w = world([]);
    w.options.handle = async (ms) => {
      w.calls.push(offsets(ms));
      if (outage-- > 0) throw new Transient('database is down');
      w.handled.push(...offsets(ms));
    };
    await settleSlice(slice(4), w.options);
    expect(w.calls).toHaveLength(26);
    expect(w.calls.every((c) => c.length === 4)).toBe(true);
    expect([w.handled, w.isolated]).toEqual([[0, 1, 2, 3], []]);
  });

  it('keeps trying to isolate until it lands', async () => {
    let refusals = 2;
    const w = world([1]);
    w.options.isolate = async (x) => {
      if (refusals-- > 0) throw new Transient('broker down');
      w.isolated.push(x);
    };
    await settleSlice(slice(2), w.options);
    expect(w.isolated.map((x) => x.message.offset)).toEqual(['1']);
  });

  it('stops, leaving the slice unsettled, when the consumer stops', async () => {
    let stop = false;
    const w = world([], {
      stopped: () => stop,
      pause: async () => {
        stop = true;
      },
    });
    w.options.handle = async () => {
      throw new Transient('database is down');
    };
    await expect(settleSlice(slice(3), w.options)).rejects.toBeInstanceOf(SettleStopped);
    expect(w.isolated).toEqual([]);
  });
});
