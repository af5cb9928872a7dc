import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { topicsFor } from '@arvis/config';
import { createKafka, ensureTopics } from '@arvis/kafka';
import { brokers } from './support/environment';
import { DATA, ROOT } from './support/services';

// kafkajs 2.2.4 re-arms a 1 ms timer for ever on every connection (ADR 0045): 1,500-2,100 timers a
// second for an idle producer and consumer. The probe (a child process, so that jest's own timers
// are not counted) connects, sends and receives one message, stays idle while it counts timers,
// then sends and receives one more, so the fix is also shown not to stall a request.
const run = promisify(execFile);
const PROBE = join(ROOT, 'test', 'support', 'idle-timer-probe.cjs');
const TARBALL = join(DATA, 'packages', 'arvis-decision-client-0.1.0.tgz');

interface IdleCounts {
  idleMs: number;
  armed: number;
  wakeUps: number;
  armedByRequestQueue: number;
  received: number;
}

describe('an idle Kafka client arms no request-queue timers', () => {
  let prefix: string;
  let dir: string;
  const probe = async (mode: 'kafkajs' | 'apps' | 'client', from: string): Promise<IdleCounts> => {
    const env = { PATH: process.env.PATH, KAFKAJS_NO_PARTITIONER_WARNING: '1' };
    const { stdout } = await run(process.execPath, [PROBE, mode, from, brokers()[0], prefix], { env });
    return JSON.parse(stdout.trim().split('\n').pop()!) as IdleCounts;
  };

  beforeAll(async () => {
    prefix = `t${Date.now().toString(36)}-idle.`;
    await ensureTopics(createKafka({ brokers: brokers(), clientId: 'arvis-test-setup' }), topicsFor(prefix), { partitions: 1, journalRetentionMs: -1 });
    dir = mkdtempSync(join(tmpdir(), 'arvis-idle-client-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the repository's kafkajs (patched at npm ci): a producer and a consumer idle for 3 s", async () => {
    const counts = await probe('kafkajs', ROOT);
    expect(counts.armedByRequestQueue).toBe(0);
    expect(counts.received).toBeGreaterThanOrEqual(2); // at least once: a rejoin may deliver one again
    // What is left is kafkajs's request-timeout check (every 100 ms per connection): tens of
    // wake-ups, against thousands with the loop.
    expect(counts.wakeUps).toBeLessThan(counts.idleMs / 10);
  });

  it('the same kafkajs as the apps run it (@arvis/kafka loaded): no request-timeout interval either (ADR 0059)', async () => {
    const counts = await probe('apps', ROOT);
    expect(counts.armedByRequestQueue).toBe(0);
    expect(counts.received).toBeGreaterThanOrEqual(2);
    // The probe's own sleep, and at most a request-timeout check at a fetch's stale deadline.
    expect(counts.wakeUps).toBeLessThanOrEqual(3);
  });

  it('the packed @arvis/decision-client on kafkajs 2.2.4 from the registry: a DecisionClient and a JournalWatcher idle for 3 s', async () => {
    if (!existsSync(TARBALL)) {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', join(DATA, 'packages')], { cwd: join(ROOT, 'libs', 'decision-client') });
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-of-the-tarball', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', TARBALL], { cwd: dir });
    // The kafkajs the tarball brought is the registry's, as published: the fix comes with the client.
    const requestQueue = readFileSync(join(dir, 'node_modules', 'kafkajs', 'src', 'network', 'requestQueue', 'index.js'), 'utf8');
    expect(requestQueue).not.toContain('Patched (tulios/kafkajs');

    const counts = await probe('client', dir);
    expect(counts.armedByRequestQueue).toBe(0);
    expect(counts.received).toBeGreaterThanOrEqual(2);
    // No request-timeout interval (ADR 0059): the probe's own sleep, and at most a check at a stale deadline.
    expect(counts.wakeUps).toBeLessThanOrEqual(3);
  });
});
