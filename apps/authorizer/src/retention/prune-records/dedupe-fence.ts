import { ConfigResourceTypes } from 'kafkajs';
import { createKafka } from '@arvis/kafka';
import type { DedupeFence } from '@arvis/lifecycle';
import { dedupeVerdict } from './dedupe-window';

/**
 * What the decisions topic can still deliver (ADR 0041): each partition's low watermark (an inbox
 * row is pruned only once its message is below it; Kafka keeps whole segments, the active one,
 * future-stamped and compacted records past retention.ms) and, for rows from before offsets were
 * kept, the old rule on retention.ms. A reason instead when the broker cannot say. `kafka` carries
 * the service's own SASL/TLS settings: a secured broker refuses an anonymous client.
 */
export async function readDedupeFence(kafka: Parameters<typeof createKafka>[0], topic: string, dedupeMs: number): Promise<DedupeFence | string> {
  const admin = createKafka(kafka).admin();
  try {
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }], includeSynonyms: false });
    const value = described.resources[0]?.configEntries.find((c) => c.configName === 'retention.ms')?.configValue;
    const legacy = dedupeVerdict(dedupeMs, value === undefined || value === null ? null : Number(value));
    return { lowWatermarks: new Map(offsets.map((o) => [o.partition, o.low])), legacyRowsMayGo: legacy.prune };
  } catch (e) {
    return `the decisions topic's offsets could not be read: ${(e as Error).message}`;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
