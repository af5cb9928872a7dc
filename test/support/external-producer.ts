import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { createKafka } from '@arvis/kafka';
import { sharedEnvironment } from './environment';
import { Harness } from './harness';

/**
 * What a spec of a producer written outside Node needs: the shared stack's harness, a scratch
 * folder holding the test issuer's private key (issuer.pem, mode 600), and the decisions topic's
 * partitions, to say where kafkajs (murmur2, as the services) puts a key.
 */
export interface ExternalProducerSetup {
  h: Harness;
  dir: string;
  keyFile: string;
  partitions: PartitionMetadata[];
  /** The decisions partition kafkajs picks for this key. */
  kafkajsPartition(key: string): number;
  close(): Promise<void>;
}

export async function openExternalProducerSetup(tmpPrefix: string): Promise<ExternalProducerSetup> {
  const h = new Harness(sharedEnvironment());
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix));
  const keyFile = join(dir, 'issuer.pem');
  writeFileSync(keyFile, h.env.issuer.privateKeyPem, { mode: 0o600 });
  const admin = createKafka({ brokers: h.env.brokers, clientId: 'arvis-test-admin' }).admin();
  await admin.connect();
  const partitions = (await admin.fetchTopicMetadata({ topics: [h.topics.decisions] })).topics[0].partitions;
  await admin.disconnect();
  const murmur2 = Partitioners.DefaultPartitioner();
  return {
    h,
    dir,
    keyFile,
    partitions,
    kafkajsPartition: (key) => murmur2({ topic: h.topics.decisions, partitionMetadata: partitions, message: { key, value: null } }),
    close: async () => {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
