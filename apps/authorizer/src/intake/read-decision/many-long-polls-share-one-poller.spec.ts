import { keyOf, ResultWaiters, type DecisionKey } from './result-waiters';

// The long polls of GET /decisions/{id}?waitS= (ADR 0072): however many wait, one lookup per tick
// asks about all of them; with nobody waiting nothing runs.
describe('result waiters: one shared poller for every long poll', () => {
  const found = new Map<string, string>();
  const asked: DecisionKey[][] = [];
  const lookup = async (keys: DecisionKey[]) => {
    asked.push(keys);
    return new Map(keys.flatMap((k) => (found.has(keyOf(k)) ? [[keyOf(k), found.get(keyOf(k))!] as const] : [])));
  };
  const final = (r: string) => r === 'final';
  beforeEach(() => {
    found.clear();
    asked.length = 0;
  });

  it('fifty waiters on ten decisions are served by one lookup per tick, each answered once its result is final', async () => {
    const w = new ResultWaiters(lookup, { pollMs: 20, maxWaiters: 100 });
    const keys = Array.from({ length: 10 }, (_, i) => ({ tenant: 'acme', decisionId: `d${i}` }));
    const answers = keys.flatMap((k) => Array.from({ length: 5 }, () => w.wait(k, 5000, final)));
    await new Promise((r) => setTimeout(r, 70));
    const ticks = asked.length;
    expect(ticks).toBeGreaterThanOrEqual(1);
    // Each lookup names each waited decision once, not once per waiter.
    for (const a of asked) expect(a).toHaveLength(10);
    for (const k of keys) found.set(keyOf(k), 'final');
    expect(await Promise.all(answers)).toEqual(Array(50).fill('final'));
    expect(w.size).toBe(0);
    const after = asked.length;
    await new Promise((r) => setTimeout(r, 80));
    expect(asked.length).toBe(after); // nobody waits: no more lookups
    w.stop();
  });

  it('a tenant is part of the key: another tenant\'s final result does not answer the waiter', async () => {
    const w = new ResultWaiters(lookup, { pollMs: 10, maxWaiters: 10 });
    found.set(keyOf({ tenant: 'globex', decisionId: 'd1' }), 'final');
    expect(await w.wait({ tenant: 'acme', decisionId: 'd1' }, 80, final)).toBeUndefined();
    w.stop();
  });

  it('at its deadline a waiter gets the last thing seen; a full set of waiters says so; stop answers everyone', async () => {
    const w = new ResultWaiters(lookup, { pollMs: 10, maxWaiters: 2 });
    found.set(keyOf({ tenant: 'acme', decisionId: 'p' }), 'pending');
    expect(await w.wait({ tenant: 'acme', decisionId: 'p' }, 60, final)).toBe('pending');
    const a = w.wait({ tenant: 'acme', decisionId: 'x' }, 10_000, final);
    const b = w.wait({ tenant: 'acme', decisionId: 'y' }, 10_000, final);
    expect(w.full).toBe(true);
    w.stop();
    expect(await Promise.all([a, b])).toEqual([undefined, undefined]);
    expect(await w.wait({ tenant: 'acme', decisionId: 'z' }, 10_000, final)).toBeUndefined();
  });

  it('a failed lookup is retried at the next tick', async () => {
    let fail = true;
    const errors: string[] = [];
    const w = new ResultWaiters(
      async (keys: DecisionKey[]) => {
        if (fail) {
          fail = false;
          throw new Error('database restarting');
        }
        return new Map(keys.map((k) => [keyOf(k), 'final']));
      },
      { pollMs: 10, maxWaiters: 10, onError: (e) => errors.push(e.message) },
    );
    expect(await w.wait({ tenant: 'acme', decisionId: 'd' }, 2000, final)).toBe('final');
    expect(errors).toEqual(['database restarting']);
    w.stop();
  });
});
