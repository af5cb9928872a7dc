import type { IntentMessage, JournalEntry } from '@arvis/contracts';
import { journalEntryKey } from '@arvis/decision-client';
import { isStopped, notesOf } from './support/effect-probes';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

const LEASE = { RELAY_LEASE_MS: '2000' };

// A relay paused (SIGSTOP) while it holds the publishing lock, after the broker took its batch and
// before it deleted the rows. Without a lease every other relay waited on that lock for as long as
// the pause lasted; with one, PostgreSQL ends the paused session after RELAY_LEASE_MS, another
// relay publishes the batch again (at least once: the dispatcher and journal readers deduplicate)
// and the path goes on. Resumed, the paused relay finds its session gone and publishes nothing of
// that batch twice more (ADR 0068).
describe('a relay paused past its lease', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('relaylease');
    await stack.start('authorizer', 'authorizer', { relay: false });
    await stack.start('dispatcher', 'dispatcher', { relay: false });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('loses the lock to another relay, every decision ends once, no tool runs twice and each run stays in order', async () => {
    const paused = await stack.start('relay', 'relay-paused', { faults: { relayPauseAfterPublish: true }, env: LEASE });
    const first = await h.decisions('relaylease-run', 3);
    await h.client.send(first);
    await h.waitUntil('the relay to pause itself after its first publish', () => isStopped(paused));

    const other = await stack.start('relay', 'relay-other', { env: LEASE });
    // Their final entries reach the journal topic: published by the other relay, the first is paused.
    const sender = { principal: 'alice', tenant: 'acme' };
    await h.waitUntil('the final entries on the journal topic while the first relay is paused', () => h.journal.finalEntriesFor(first.map((d) => d.decisionId), sender).size === first.length, 30_000);
    expect(isStopped(paused)).toBe(true);
    expect((await stack.relayStats(other))?.published).toBeGreaterThan(0);

    paused.child.kill('SIGCONT');
    const second = (await h.decisions('relaylease-run', 3)).map((d, i) => ({ ...d, decisionId: `${d.runId}:after:${i}`, causalId: `after${i}`, payload: { text: `after ${i}` } }));
    await h.client.send(second);
    const all = [...first, ...second].map((d) => d.decisionId);
    await h.waitUntil('the decisions sent after the resume to end', async () => (await h.finalRows(all)).length === all.length);
    // Resumed, it failed that batch (its session was ended) and went on as a relay: it did not exit.
    expect(paused.child.exitCode).toBeNull();
    expect(paused.child.signalCode).toBeNull();

    expect((await h.finalRows(all)).length).toBe(all.length);
    for (const id of all) expect(await notesOf(h, id)).toBe(1);

    // On the topics, only the paused batch may appear twice; first appearances keep each run's order.
    const intents = (await readWholeTopic(h.env.brokers, h.topics.intents)).map((r) => JSON.parse(r.value) as IntentMessage);
    const times = new Map<string, number>();
    for (const m of intents) times.set(m.decisionId, (times.get(m.decisionId) ?? 0) + 1);
    for (const d of second) expect(times.get(d.decisionId)).toBe(1);
    for (const d of first) expect(times.get(d.decisionId)).toBeLessThanOrEqual(2);
    let last = -1n;
    const seen = new Set<string>();
    for (const m of intents) {
      if (seen.has(m.intentId)) continue;
      seen.add(m.intentId);
      expect(BigInt(m.receipt.durablePosition)).toBeGreaterThan(last);
      last = BigInt(m.receipt.durablePosition);
    }
    const journal = (await readWholeTopic(h.env.brokers, h.topics.journal)).map((r) => JSON.parse(r.value) as JournalEntry).filter((e) => typeof e.journalSeq === 'string'); // checkpoints have none
    const keys = new Set<string>();
    let lastSeq = 0n;
    for (const e of journal) {
      if (keys.has(journalEntryKey(e))) continue;
      keys.add(journalEntryKey(e));
      expect(BigInt(e.journalSeq)).toBeGreaterThan(lastSeq);
      lastSeq = BigInt(e.journalSeq);
    }
    expect(keys.size).toBe(all.length);
  });
});
