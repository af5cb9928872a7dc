import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Partitioners, type Admin } from 'kafkajs';
import { createKafka } from '@arvis/kafka';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';

/**
 * Which runs' intents are still waiting in this dispatcher group's consumer lag: an intent on a
 * partition the group has not consumed to its end may simply not have been read yet, and must not
 * be delivered again (nor counted as refused). The partition is the producer's own choice for the
 * run id (murmur2, the default partitioner). When the broker cannot be asked, every run counts as
 * lagging: a redelivery can always wait for the next pass.
 */
@Injectable()
export class IntentsLag implements OnModuleDestroy {
  private readonly log = new Logger(IntentsLag.name);
  private admin?: Admin;
  private readonly partitionOf = Partitioners.DefaultPartitioner();

  constructor(@Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig) {}

  async lagging(runIds: readonly string[]): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    try {
      const { lagging, partitions } = await this.laggingPartitions();
      return new Set(runIds.filter((r) => lagging.has(this.partitionFor(r, partitions))));
    } catch (e) {
      this.log.warn({ msg: 'consumer lag unknown; no redelivery this pass', error: (e as Error).message });
      return new Set(runIds);
    }
  }

  private partitionFor(runId: string, partitions: number): number {
    const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
    return this.partitionOf({ topic: this.config.topics.intents, partitionMetadata, message: { key: runId, value: null } });
  }

  private async laggingPartitions(): Promise<{ lagging: Set<number>; partitions: number }> {
    const admin = await this.connected();
    const topic = this.config.topics.intents;
    const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: this.config.kafka.groupId, topics: [topic] })]);
    const at = new Map(committed.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    const lagging = ends.filter((e) => {
      const done = at.get(e.partition) ?? -1n;
      return (done < 0n ? BigInt(e.low) : done) < BigInt(e.high);
    });
    return { lagging: new Set(lagging.map((e) => e.partition)), partitions: ends.length };
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
