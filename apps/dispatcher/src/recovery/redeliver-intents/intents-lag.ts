import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Partitioners, type Admin } from 'kafkajs';
import { createKafka } from '@arvis/kafka';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import { DispatcherPools, type ServedPool } from '../../config/dispatcher-pools';

/**
 * Which runs' intents are still waiting in their pool's consumer lag (the pool's topic and group,
 * ADR 0081): an intent on a partition the group has not consumed to its end may simply not have
 * been read yet, and must not be delivered again (nor counted as refused). The partition is the producer's own choice for the
 * run id (murmur2, the default partitioner). When the broker cannot be asked, every run counts as
 * lagging: a redelivery can always wait for the next pass.
 */
@Injectable()
export class IntentsLag implements OnModuleDestroy {
  private readonly log = new Logger(IntentsLag.name);
  private admin?: Admin;
  private readonly partitionOf = Partitioners.DefaultPartitioner();

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly pools: DispatcherPools,
  ) {}

  static key(pool: string, runId: string): string {
    return `${pool}\u0000${runId}`;
  }

  /** The (pool, run) keys (IntentsLag.key) of these runs whose partition their pool's group has not read to its end. */
  async lagging(runs: readonly { pool: string; runId: string }[]): Promise<Set<string>> {
    const keys = runs.map((r) => IntentsLag.key(r.pool, r.runId));
    if (runs.length === 0) return new Set();
    try {
      const lagging = new Set<string>();
      for (const name of new Set(runs.map((r) => r.pool))) {
        const pool = this.pools.get(name)!;
        const { partitions, count } = await this.laggingPartitions(pool);
        for (const r of runs) if (r.pool === name && partitions.has(this.partitionFor(pool, r.runId, count))) lagging.add(IntentsLag.key(r.pool, r.runId));
      }
      return lagging;
    } catch (e) {
      this.log.warn({ msg: 'consumer lag unknown; no redelivery this pass', error: (e as Error).message });
      return new Set(keys);
    }
  }

  private partitionFor(pool: ServedPool, runId: string, partitions: number): number {
    const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
    return this.partitionOf({ topic: pool.topic, partitionMetadata, message: { key: runId, value: null } });
  }

  private async laggingPartitions(pool: ServedPool): Promise<{ partitions: Set<number>; count: number }> {
    const admin = await this.connected();
    const topic = pool.topic;
    const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: pool.groupId, topics: [topic] })]);
    const at = new Map(committed.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    const lagging = ends.filter((e) => {
      const done = at.get(e.partition) ?? -1n;
      return (done < 0n ? BigInt(e.low) : done) < BigInt(e.high);
    });
    return { partitions: new Set(lagging.map((e) => e.partition)), count: ends.length };
  }

  private async connected(): Promise<Admin> {
    if (!this.admin) {
      const admin = createKafka(this.config.kafka).admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }

  async onModuleDestroy(): Promise<void> {
    await this.admin?.disconnect().catch(() => undefined);
  }
}
