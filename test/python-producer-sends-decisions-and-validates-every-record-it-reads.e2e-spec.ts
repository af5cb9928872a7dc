import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PartitionMetadata } from 'kafkajs';
import { openExternalProducerSetup, type ExternalProducerSetup } from './support/external-producer';
import { Harness } from './support/harness';
import { ROOT } from './support/services';

const run = promisify(execFile);
const PRODUCER = join(ROOT, 'examples', 'python-producer', 'producer.py');

// examples/python-producer on Debian's own /usr/bin/python3 with Debian's confluent-kafka, PyJWT
// and jsonschema (scripts/test.sh installs them), against the suite's broker and apps: its
// decisions land on the partitions kafkajs (murmur2) picks for their runId, each one's result
// comes back, from the journal topic (read from the end offsets recorded before sending) or from
// the results API, and every record it read satisfied the published schemas.
describe('a Python producer (confluent-kafka, PyJWT, jsonschema)', () => {
  let setup: ExternalProducerSetup;
  let h: Harness;
  let dir: string;
  let partitions: PartitionMetadata[];
  const env = (over: Record<string, string>) => ({
    PATH: process.env.PATH ?? '',
    KAFKA_BROKERS: h.env.brokers.join(','),
    ARVIS_TOPIC_PREFIX: h.env.topicPrefix,
    ISSUER: h.env.issuer.issuer,
    ISSUER_KEY_FILE: join(dir, 'issuer.pem'),
    API_URL: h.env.apiUrl!,
    WAIT_S: '60',
    ...over,
  });
  const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    setup = await openExternalProducerSetup('arvis-python-');
    ({ h, dir, partitions } = setup);
  });
  afterAll(() => setup.close());

  it('sends three decisions, reads each result from the journal topic, and every record read validates', async () => {
    const runId = `py-run-${Date.now()}`;
    const { stdout } = await run('/usr/bin/python3', [PRODUCER], { env: env({ RUN_ID: runId, COUNT: '3', PRINCIPAL: 'carol' }) });
    const out = lines(stdout);
    const summary = out.pop()!.summary as { sent: number; results: number; partitions: number[]; recordsRead: number; invalidRecords: number };
    expect(out).toEqual([0, 1, 2].map((i) => expect.objectContaining({ decisionId: `${runId}:d${i}`, kind: 'tool_result', success: true, tenant: 'acme', principal: 'carol' })));
    expect(summary).toMatchObject({ sent: 3, results: 3, invalidRecords: 0 });
    expect(summary.recordsRead).toBeGreaterThanOrEqual(3);
    // murmur2, as kafkajs and the services: one run, one partition, the one kafkajs picks.
    expect(summary.partitions).toEqual([setup.kafkajsPartition(runId)]);
    const rows = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM journal WHERE run_id = $1 AND final_decision_id IS NOT NULL', [runId]);
    expect(rows[0].n).toBe('3');
  });

  it('by the results API: a refusal is a result too, and it validates', async () => {
    const runId = `py-api-${Date.now()}`;
    const { stdout } = await run('/usr/bin/python3', [PRODUCER], { env: env({ RUN_ID: runId, COUNT: '2', RESULTS: 'api', TOOL: 'no.such.tool' }) });
    const out = lines(stdout);
    expect(out.pop()!.summary).toMatchObject({ sent: 2, results: 2, invalidRecords: 0, via: 'api' });
    expect(out).toEqual([0, 1].map((i) => expect.objectContaining({ decisionId: `${runId}:d${i}`, kind: 'authorization_refusal', reasonCode: 'unknown_tool', principal: 'alice' })));
  });
});
