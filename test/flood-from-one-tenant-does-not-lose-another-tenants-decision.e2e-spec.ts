import { Partitioners } from 'kafkajs';
import type { JournalEntry } from '@arvis/contracts';
import type { DecisionInput } from '@arvis/decision-client';
import { createKafka } from '@arvis/kafka';
import { sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

// One tenant floods the path with 1,000 decisions in one run; another tenant sends one decision in
// the middle of it. Decisions are keyed by run id, so the worst case for the other tenant is a run
// that hashes to the flood's partition: it is then consumed in order behind the flood's first half.
// A second decision of the other tenant, on another partition, shows what partitioning spares it.
// Asserted: behaviour only (each decision ends once, with its own tenant); the waits are printed.
describe('a flood of 1,000 decisions from one tenant', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  const N = 1000;
  const floodRun = `flood-a-${Date.now().toString(36)}`;

  /** The partition the decision client's producer (murmur2, keyed by run id) puts a run on. */
  async function partitionOf(): Promise<(runId: string) => number> {
    const admin = createKafka({ brokers: h.env.brokers, clientId: 'arvis-test-admin' }).admin();
    await admin.connect();
    const { topics } = await admin.fetchTopicMetadata({ topics: [h.topics.decisions] }).finally(() => admin.disconnect());
    const partitionMetadata = topics[0].partitions.map((p) => ({ ...p, partitionErrorCode: 0, offlineReplicas: [] }));
    const partitioner = Partitioners.DefaultPartitioner();
    return (runId) => partitioner({ topic: h.topics.decisions, partitionMetadata, message: { key: runId, value: null } });
  }

  /**
   * The ms from now until the decision's final entry is in the journal table (`ms`) and on the
   * journal topic (`topicMs`, after the relay), and how many of `flood` were on the topic then.
   */
  async function journaledWithin(decisionId: string, flood: string[]) {
    const start = Date.now();
    const inTable = h.waitUntil(`${decisionId} in the journal table`, async () => (await h.finalRows([decisionId])).length > 0, 120_000);
    const ms = await inTable.then(() => Date.now() - start);
    await h.journal.waitFor(() => h.journal.finalEntriesFor([decisionId]).size === 1, 120_000);
    return { ms, topicMs: Date.now() - start, floodEnded: h.journal.finalEntriesFor(flood).size };
  }

  it("ends every flooding decision once, and the other tenant's decision with its own final entry", async () => {
    const partition = await partitionOf();
    const candidates = Array.from({ length: 200 }, (_, i) => `flood-b-${floodRun}-${i}`);
    const sameRun = candidates.find((r) => partition(r) === partition(floodRun))!;
    const otherRun = candidates.find((r) => partition(r) !== partition(floodRun))!;

    const tokenA = await h.token({ tenant: 'acme', principal: 'flooder', serviceId: 'agent-flood' });
    const tokenB = await h.token({ tenant: 'globex', principal: 'bob', serviceId: 'agent-b' });
    const flood = await h.decisions(floodRun, N, { identity: tokenA });
    const one = (runId: string): DecisionInput => ({
      decisionId: `${runId}:d0`,
      runId,
      causalId: 'c0',
      tool: 'notes.append',
      payload: { text: 'the other tenant', ref: `${runId}:0` },
      riskScore: 0.1,
      identity: tokenB,
    });
    const [bSame, bOther] = [one(sameRun), one(otherRun)];
    const floodIds = flood.map((d) => d.decisionId);

    const floodStart = Date.now();
    await h.client.send(flood.slice(0, N / 2));
    // B's two decisions go in the middle: the same-partition one lands behind the first 500.
    const waits = Promise.all([journaledWithin(bSame.decisionId, floodIds), journaledWithin(bOther.decisionId, floodIds)]);
    await h.client.send([bSame, bOther]);
    await h.client.send(flood.slice(N / 2));
    const [same, other] = await waits;

    await h.journal.waitFor(() => h.journal.finalEntriesFor(floodIds).size === N, 120_000);
    const floodMs = Date.now() - floodStart;

    for (const d of [bSame, bOther]) {
      const entries = h.journal.finalEntriesFor([d.decisionId]).get(d.decisionId) ?? [];
      expect(entries.map((e: JournalEntry) => [e.kind, e.effectBoundary, e.tenant, e.principal])).toEqual([
        ['tool_result', 'effect_completed', 'globex', 'bob'],
      ]);
    }
    const onTopic = h.journal.finalEntriesFor(floodIds);
    expect(onTopic.size).toBe(N);
    expect([...onTopic.values()].filter((es) => es.length !== 1)).toEqual([]);
    expect([...onTopic.values()].flat().filter((e) => e.tenant !== 'acme' || e.effectBoundary !== 'effect_completed')).toEqual([]);
    const rows = await h.finalRows([...floodIds, bSame.decisionId, bOther.decisionId]);
    expect(rows).toHaveLength(N + 2);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N + 2);

    console.log(
      `flood of ${N} (tenant acme, one run, partition ${partition(floodRun)}): all journaled in ${floodMs} ms; ` +
        `tenant globex's decision sent after the first ${N / 2}, on the same partition: in the journal table ${same.ms} ms ` +
        `and on the journal topic ${same.topicMs} ms after it was sent (${same.floodEnded} of the flood on the topic by then); ` +
        `on partition ${partition(otherRun)}: ${other.ms} ms, ${other.topicMs} ms (${other.floodEnded})`,
    );
  });
});
