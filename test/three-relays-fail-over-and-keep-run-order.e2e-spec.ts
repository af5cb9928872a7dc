import type { IntentMessage, JournalEntry } from '@arvis/contracts';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { exited, Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// One relay publishes at a time (a transaction-scoped advisory lock per batch); when it dies
// another takes over. Killing the one that worked, twice, shows each of the three doing work.
describe('three relays', () => {
  let stack: Stack;
  let h: Harness;
  let relays: RunningApp[];
  beforeAll(async () => {
    stack = await Stack.create('relays3');
    await stack.start('authorizer', 'authorizer', { relay: false });
    await stack.start('dispatcher', 'dispatcher', { relay: false });
    relays = [await stack.start('relay', 'relay-a')];
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('fail over when the active one is killed, lose nothing and keep each run in order', async () => {
    const RUNS = 4;
    const PER_WAVE = 10;
    const all: string[] = [];
    const published = new Map<string, number>();
    const wave = async (n: number) => {
      const decisions = (
        await Promise.all(
          Array.from({ length: RUNS }, (_, r) =>
            h.decisions(`relays3-run-${r}`, PER_WAVE).then((ds) =>
              ds.map((d, i) => ({ ...d, decisionId: `${d.runId}:w${n}:${i}`, causalId: `w${n}c${i}`, payload: { text: `w${n} ${i}` } })),
            ),
          ),
        )
      ).flat();
      all.push(...decisions.map((d) => d.decisionId));
      await h.client.send(decisions);
      await h.waitUntil(`wave ${n} to complete`, async () => (await h.finalRows(all)).length === all.length);
      const delta = new Map<RunningApp, number>();
      for (const r of relays.filter((x) => x.child.exitCode === null && x.child.signalCode === null)) {
        const now = (await stack.relayStats(r))?.published ?? 0;
        delta.set(r, now - (published.get(r.name) ?? 0));
        published.set(r.name, now);
      }
      return delta;
    };
    const kill = async (r: RunningApp) => {
      r.child.kill('SIGKILL');
      await exited(r);
    };

    // Wave 0: A alone.
    const [a] = relays;
    const w0 = await wave(0);
    expect(w0.get(a)).toBeGreaterThan(0);

    // Wave 1: A is killed; B or C (or both, batch by batch) must take over.
    const b = await stack.start('relay', 'relay-b');
    const c = await stack.start('relay', 'relay-c');
    relays = [a, b, c];
    await kill(a);
    const w1 = await wave(1);
    const took = (w1.get(b) ?? 0) > 0 ? b : c;
    expect((w1.get(b) ?? 0) + (w1.get(c) ?? 0)).toBeGreaterThan(0);

    // Wave 2: the one that took over is killed too; the last one carries the wave alone.
    await kill(took);
    const last = took === b ? c : b;
    const w2 = await wave(2);
    expect(w2.get(last)).toBeGreaterThan(0);
    // Each of the three relay roles (first, failover, last) published.
    expect([published.get(a.name), published.get(took.name), published.get(last.name)].every((n) => (n ?? 0) > 0)).toBe(true);

    // Per-run order: each run's intents appear on the topic in durable-position order (a
    // redelivered duplicate may repeat an earlier one; first appearances must be increasing).
    const intents = (await readWholeTopic(h.env.brokers, h.topics.intents)).map((r) => JSON.parse(r.value) as IntentMessage);
    const seen = new Set<string>();
    const lastByRun = new Map<string, bigint>();
    const outOfOrder: string[] = [];
    for (const m of intents) {
      if (seen.has(m.intentId)) continue;
      seen.add(m.intentId);
      const pos = BigInt(m.receipt.durablePosition);
      if (pos <= (lastByRun.get(m.runId) ?? -1n)) outOfOrder.push(`${m.runId}: ${pos} after ${lastByRun.get(m.runId)} (${m.decisionId})`);
      lastByRun.set(m.runId, pos);
    }
    expect(outOfOrder).toEqual([]);
    expect(seen.size).toBe(all.length);
    const journal = (await readWholeTopic(h.env.brokers, h.topics.journal)).map((r) => JSON.parse(r.value) as JournalEntry);
    const lastSeq = new Map<string, bigint>();
    const seqs = new Set<string>();
    for (const e of journal) {
      if (seqs.has(e.journalSeq)) continue;
      seqs.add(e.journalSeq);
      expect(BigInt(e.journalSeq) > (lastSeq.get(e.runId) ?? 0n)).toBe(true);
      lastSeq.set(e.runId, BigInt(e.journalSeq));
    }
    expect(seqs.size).toBe(all.length);
  });
});
