import type { KafkaBatch } from '@arvis/kafka';
import { DispatcherEnv } from '../apps/dispatcher/src/config/dispatcher.config';
import { TransportBench } from './support/transport-bench';

// The consumer transport alone (no apps, no database) against the real broker, shaped as the
// dispatcher meets an intents backlog: three partitions each hold one record batch of 450
// messages of 1.3 KB (about 600 KB: a relay send leaves record batches of some 450 intents, more
// than half of a 1 MB fetch), and each slice waits 40 ms (its transactions). The broker gives a
// record batch larger than what is left of a fetch only to the fetch's first partition, so the
// fetch size decides whether the partitions' slices can overlap (ADR 0094).
describe('intents backlogged on three partitions', () => {
  const PER_PARTITION = 450;
  const bench = new TransportBench('three-at-once');
  const { prefix, producer } = bench;

  beforeAll(() => bench.connect());
  afterAll(() => bench.close());

  async function backlog(topic: string): Promise<void> {
    await bench.createTopic(topic, 3);
    const value = 'i'.repeat(1300);
    for (let p = 0; p < 3; p++) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: PER_PARTITION }, (_, i) => ({ key: `p${p}-${i}`, value, partition: p })) });
    }
  }

  /** Consumes the backlog with the dispatcher's consumer settings and `maxBatchBytes`; the most slices that were in flight at once. */
  async function mostSlicesAtOnce(topic: string, maxBatchBytes: number): Promise<{ most: number; handled: Map<number, string[]> }> {
    await backlog(topic);
    const handled = new Map<number, string[]>([0, 1, 2].map((p) => [p, []]));
    let inFlight = 0;
    let most = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await bench.consume(topic, { partitionsConsumedConcurrently: 3, maxBatchBytes }, async (batch: KafkaBatch) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 40));
      inFlight--;
      handled.get(batch.partition)!.push(...batch.messages.map((m) => m.offset));
      if ([...handled.values()].every((h) => h.length >= PER_PARTITION)) done();
    });
    await finished;
    return { most, handled };
  }

  const inOrder = Array.from({ length: PER_PARTITION }, (_, i) => String(i));

  it("with the dispatcher's default fetch size, the partitions' slices overlap, each partition still in order", async () => {
    const dispatcherDefault = DispatcherEnv.shape.KAFKA_MAX_BATCH_BYTES.parse(undefined);
    const { most, handled } = await mostSlicesAtOnce(`${prefix}-a`, dispatcherDefault);
    expect(most).toBe(3);
    for (const p of [0, 1, 2]) expect(handled.get(p)).toEqual(inOrder);
  });

  it('with a 1 MB fetch (the default before ADR 0094, still the other services\'), one slice at a time', async () => {
    const { most, handled } = await mostSlicesAtOnce(`${prefix}-b`, 1024 * 1024);
    expect(most).toBe(1);
    for (const p of [0, 1, 2]) expect(handled.get(p)).toEqual(inOrder);
  });
});
