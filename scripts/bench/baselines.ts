// Baselines measured in the same session: what PostgreSQL and the broker do alone, so the service
// figures can be read against the floor the machine sets.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { Pool } from 'pg';
import { summarize, type LatencySummary } from './stats';

const run = promisify(execFile);
const PG = 'postgresql://postgres@127.0.0.1:5432';

/** The tps pgbench prints ("tps = 1234.5 (without initial connection time)"). */
export function parsePgbenchTps(output: string): number {
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
  if (!m) throw new Error(`no tps in pgbench output: ${output.slice(-300)}`);
  return Number(m[1]);
}

async function adminQuery(sql: string, db = 'postgres'): Promise<void> {
  const pool = new Pool({ connectionString: `${PG}/${db}`, max: 1 });
  try {
    await pool.query(sql);
  } finally {
    await pool.end();
  }
}

/** pgbench: 8 clients, one single-row INSERT per transaction, on a scratch database dropped after. */
export async function pgbenchInserts(database: string, seconds: number, clients = 8): Promise<{ clients: number; seconds: number; tps: number }> {
  await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${database}"`);
  try {
    await adminQuery('CREATE TABLE bench_rows (id bigserial PRIMARY KEY, v text NOT NULL, at timestamptz NOT NULL DEFAULT now())', database);
    const script = join(mkdtempSync(join(tmpdir(), 'arvis-pgbench-')), 'insert.sql');
    writeFileSync(script, "INSERT INTO bench_rows (v) VALUES ('x');\n");
    const args = ['-n', '-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', script, database];
    const { stdout } = await run('pgbench', args, { timeout: (seconds + 60) * 1000 });
    return { clients, seconds, tps: parsePgbenchTps(stdout) };
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  }
}

/**
 * kafkajs alone: a producer sends `rate` messages/s (acks=all, as the services send) to a scratch
 * topic, a consumer in the same process reads them; each message's round trip is from its send to
 * its arrival. The topic is deleted after.
 */
export async function kafkaRoundTrip(brokers: string[], topic: string, rate: number, seconds: number): Promise<{ rate: number } & LatencySummary> {
  // Quiet: a fresh broker answers "coordinator not available" once or twice, which kafkajs retries.
  const kafka = new Kafka({ brokers, clientId: 'arvis-bench-rtt', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 });
  const sent = new Map<string, number>();
  const rtt: number[] = [];
  try {
    await Promise.all([producer.connect(), consumer.connect()]);
    await consumer.subscribe({ topic, fromBeginning: true });
    const joined = new Promise<void>((r) => consumer.on(consumer.events.GROUP_JOIN, () => r()));
    await consumer.run({ eachMessage: async ({ message }) => void rtt.push(performance.now() - (sent.get(message.key!.toString()) ?? NaN)) });
    await joined;
    const total = rate * seconds;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i / rate) * 1000 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sent.set(String(i), performance.now());
      await producer.send({ topic, acks: -1, messages: [{ key: String(i), value: 'x' }] });
    }
    const deadline = Date.now() + 30_000;
    while (rtt.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return { rate, ...summarize(rtt.filter(Number.isFinite)) };
  } finally {
    await Promise.allSettled([producer.disconnect(), consumer.disconnect()]);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}
