import type { Consumer, KafkaBatch } from '@arvis/kafka';
import { TransportBench } from './support/transport-bench';

// The consumer transport alone (no apps, no database) against the real broker: a backlog of 600
// messages waits on partition 0 of a fresh topic, in record batches of 100 as a relay would send
// them, and the handler takes 2 ms per message and 10 ms per slice (a transaction). kafkajs
// reports how many messages each fetched batch handed to the transport (START_BATCH_PROCESS,
// `batchSize`): a rest left unresolved is fetched and decoded again, and counted again.
describe('a backlog on one partition', () => {
  const N = 600;
  const bench = new TransportBench('fetch-once');
  const { prefix, producer } = bench;

  beforeAll(() => bench.connect());
  afterAll(() => bench.close());

  async function backlog(topic: string): Promise<void> {
    await bench.createTopic(topic, 2);
    const value = 'x'.repeat(1000);
    for (let b = 0; b < N / 100; b++) {
      const messages = Array.from({ length: 100 }, (_, i) => ({ key: `k${b * 100 + i}`, value, partition: 0 }));
      await producer.send({ topic, acks: -1, messages });
    }
  }

  /** Starts a transport on `topic` in its own group; `onSlice` runs inside every slice's handler. */
  async function consume(topic: string, onSlice: (batch: KafkaBatch) => Promise<void>) {
    const fetched = { messages: 0 };
    const transport = await bench.consume(topic, { partitionsConsumedConcurrently: 2, maxBatchBytes: 4 * 1024 * 1024 }, async (batch: KafkaBatch) => {
      await new Promise((r) => setTimeout(r, 10 + 2 * batch.messages.length));
      await onSlice(batch);
    });
    const consumer = transport.unwrap<Consumer>();
    consumer.on(consumer.events.START_BATCH_PROCESS, (e) => void (fetched.messages += (e.payload as { batchSize: number }).batchSize));
    return fetched;
  }

  it('is fetched once while no other partition has messages waiting: each message reaches the transport once, in order', async () => {
    const topic = `${prefix}-a`;
    await backlog(topic);
    const handled: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    // Partition 1 stays empty; slices grow 32, 64, 128, 256 and take the 120 left.
    const fetched = await consume(topic, async (batch) => {
      handled.push(...batch.messages.map((m) => m.offset));
      if (handled.length >= N) done();
    });
    await finished;

    expect(handled).toEqual(Array.from({ length: N }, (_, i) => String(i)));
    // One fetch brings the whole backlog (600 KB, below the fetch's 1 MB per partition).
    expect(fetched.messages).toBe(N);
  });

  it('takes turns: a message that reaches another partition mid-backlog is handled before the backlog ends', async () => {
    const topic = `${prefix}-b`;
    await backlog(topic);
    const order: string[] = [];
    let sent = false;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const fetched = await consume(topic, async (batch) => {
      order.push(...batch.messages.map((m) => `${batch.partition}@${m.offset}`));
      // Sent (and acknowledged) inside the first slice, so the next fetch finds it.
      if (!sent) {
        sent = true;
        await producer.send({ topic, acks: -1, messages: [{ key: 'other', value: 'other', partition: 1 }] });
      }
      if (order.length >= N + 1) done();
    });
    await finished;

    expect(order.filter((o) => o.startsWith('0@'))).toEqual(Array.from({ length: N }, (_, i) => `0@${i}`));
    expect(order.indexOf('1@0')).toBeGreaterThan(0);
    expect(order.indexOf('1@0')).toBeLessThan(order.indexOf(`0@${N - 1}`));
    // The backlog's batch yielded to it once: its rest was fetched again.
    expect(fetched.messages).toBeGreaterThan(N + 1);
  });
});
