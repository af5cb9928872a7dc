import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020';
import type { PartitionMetadata } from 'kafkajs';
import { JournalEntrySchema } from '@arvis/contracts';
import { openExternalProducerSetup, type ExternalProducerSetup } from './support/external-producer';
import { Harness } from './support/harness';
import { DATA, ROOT } from './support/services';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'examples', 'shell-producer', 'send-decision.sh');
const TARBALL = join(DATA, 'packages', 'arvis-decision-client-0.1.0.tgz');
const journalSchema = new Ajv2020({ strict: true }).compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'journal-entry.schema.json'), 'utf8')));

describe('producers in other languages: a shell script and the packed client', () => {
  let setup: ExternalProducerSetup;
  let h: Harness;
  let dir: string;
  let partitions: PartitionMetadata[];
  const scriptEnv = () => ({
    PATH: process.env.PATH,
    KAFKA_BROKERS: h.env.brokers.join(','),
    ARVIS_TOPIC_PREFIX: h.env.topicPrefix,
    ISSUER: h.env.issuer.issuer,
    ISSUER_KEY_FILE: join(dir, 'issuer.pem'),
  });
  const kafkajsPartition = (key: string) => setup.kafkajsPartition(key);

  beforeAll(async () => {
    setup = await openExternalProducerSetup('arvis-producers-');
    ({ h, dir, partitions } = setup);
  });
  afterAll(() => setup.close());

  it('a decision sent by send-decision.sh (openssl JWT, kcat) is journaled, on the partition kafkajs picks for its runId', async () => {
    // A runId on which librdkafka's default (CRC32) and murmur2 disagree, so a producer that forgot
    // partitioner=murmur2_random would be caught.
    const runId = Array.from({ length: 50 }, (_, i) => `shell-run-${Date.now()}-${i}`).find(
      (k) => crc32(Buffer.from(k)) % partitions.length !== kafkajsPartition(k),
    )!;
    const decisionId = `${runId}:d1`;
    const { stdout } = await run('bash', [SCRIPT], {
      env: {
        ...scriptEnv(),
        RUN_ID: runId,
        DECISION_ID: decisionId,
        PAYLOAD_JSON: '{"text":"from bash, \\"quoted\\""}',
        WAIT_S: '60',
      },
    });
    const [delivered, entryLine] = stdout.trim().split('\n');
    expect(delivered).toMatch(/^delivered partition=\d+ offset=\d+$/);
    expect(Number(/partition=(\d+)/.exec(delivered)![1])).toBe(kafkajsPartition(runId));

    const entry = JSON.parse(entryLine) as Record<string, unknown>;
    expect(entry).toMatchObject({ decisionId, runId, kind: 'tool_result', success: true, effectBoundary: 'effect_completed', principal: 'alice', tenant: 'acme' });
    // A real journal message satisfies the published JSON Schema and the zod contract alike.
    expect(journalSchema(entry) ? 'valid' : journalSchema.errors).toBe('valid');
    expect(JournalEntrySchema.safeParse(entry).success).toBe(true);
  });

  it('send-decision.sh signed by a key the authorizer does not trust: dead-lettered identity_invalid, exit 2', async () => {
    execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', join(dir, 'stranger.pem')]);
    const runId = `shell-stranger-${Date.now()}`;
    const failed = await run('bash', [SCRIPT], {
      env: { ...scriptEnv(), ISSUER_KEY_FILE: join(dir, 'stranger.pem'), RUN_ID: runId, WAIT_S: '3' },
    }).catch((e: { code: number; stdout: string }) => e);
    expect('code' in failed ? failed.code : 0).toBe(2);
    const record = JSON.parse(failed.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(record).toMatchObject({ reasonCode: 'identity_invalid', decisionId: `${runId}:d1`, sourceTopic: h.topics.decisions });
  });

  it('the npm-packed @arvis/decision-client installs in an empty folder, refuses an invalid decision, sends one and reads its result from the topic\'s end', async () => {
    if (!existsSync(TARBALL)) {
      mkdirSync(join(DATA, 'packages'), { recursive: true });
      execFileSync('npm', ['pack', '--silent', '--pack-destination', join(DATA, 'packages')], { cwd: join(ROOT, 'libs', 'decision-client') });
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-of-the-tarball', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', TARBALL], { cwd: dir });
    const runId = `packed-run-${Date.now()}`;
    writeFileSync(
      join(dir, 'send.js'),
      `const c = require('@arvis/decision-client');
       (async () => {
         const [brokers, prefix, issuer, runId] = process.argv.slice(2);
         const topics = c.prefixedTopics(prefix);
         const identity = await c.mintIdentityToken({ issuer, privateKeyPem: require('fs').readFileSync('issuer.pem', 'utf8') },
           { principal: 'bob', tenant: 'acme', serviceId: 'packed-client' });
         const sender = { tenant: 'acme', principal: 'bob' };
         // Records the journal topic's end before sending and reads from there only.
         const watcher = new c.ResultWatcher([brokers], topics.journal, sender);
         await watcher.start();
         const client = new c.DecisionClient([brokers], topics);
         const d = { decisionId: runId + ':d1', runId, causalId: 'c1', tool: 'notes.append', payload: { text: 'from the tarball' }, riskScore: 0.1, identity };
         // Refused by the published schema before anything is produced.
         const refused = await client.send([{ ...d, decisionId: runId + ':bad', riskScore: 2 }]).then(() => null, (e) => e.name);
         await client.send([d]);
         const entry = await watcher.waitFor(d.decisionId, 60000);
         const started = watcher.startOffsets.reduce((n, p) => n + Number(p.offset), 0);
         console.log(JSON.stringify({ entries: entry ? [entry] : [], refused, started, stats: watcher.stats }));
         await client.close();
         await watcher.stop();
       })().catch((e) => { console.error(e); process.exit(1); });`,
    );
    // Run from the folder with no other node_modules: only what the tarball brought.
    const { stdout } = await run('node', ['send.js', h.env.brokers[0], h.env.topicPrefix, h.env.issuer.issuer, runId], { cwd: dir, env: { PATH: process.env.PATH } });
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as { entries: Record<string, unknown>[]; refused: string; started: number; stats: { kept: number; read: number } };
    expect(out.entries).toEqual([expect.objectContaining({ decisionId: `${runId}:d1`, kind: 'tool_result', success: true, principal: 'bob' })]);
    expect(out.refused).toBe('InvalidDecisionError');
    // It started at the topic's end (the suite's earlier entries are behind it) and kept only its own.
    expect(out.started).toBeGreaterThan(0);
    expect(out.stats.kept).toBe(1);
  });
});
