import type { RelaySettings } from '@arvis/config';

/** Settings of a relay a spec runs in-process: a short poll, a long lease and prune, roomy batches. */
export const specRelaySettings = (shards: number): RelaySettings => ({
  enabled: true,
  batchSize: 100,
  pollMs: 200,
  idlePollMaxMs: 200,
  leaseMs: 30_000,
  retentionMs: 3_600_000,
  pruneBatch: 100,
  pruneIntervalMs: 3_600_000,
  maxBatchBytes: 512 * 1024,
  maxMessageBytes: 768 * 1024,
  shards,
});
