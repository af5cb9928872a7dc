// Benchmark: end-to-end throughput and decision-to-journal latency through the real services,
// and their memory. Reports figures; asserts nothing. Run through scripts/bench.sh.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { commonEnvShape, envInt, loadConfig, topicsFor } from '@arvis/config';
import { DecisionClient, JournalWatcher, mintIdentityToken, type DecisionInput } from '@arvis/decision-client';

const FINAL = new Set(['tool_result', 'authorization_refusal', 'admission_refusal']);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function memory(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

type Make = (tag: string, i: number) => DecisionInput;

/** 1. Throughput: everything at once, first send to last final entry seen on arvis.journal. */
async function throughputPhase(client: DecisionClient, watcher: JournalWatcher, seenAt: Map<string, number>, make: Make, n: number) {
  const tag = `t${Date.now().toString(36)}`;
  console.log(`[bench] throughput: ${n} decisions as fast as the producer can send them`);
  const t0 = performance.now();
  const all = Array.from({ length: n }, (_, i) => make(tag, i));
  await client.send(all);
  const sentMs = performance.now() - t0;
  const ids = all.map((d) => d.decisionId);
  let last = 0;
  const progress = setInterval(() => {
    const done = ids.filter((id) => seenAt.has(id)).length;
    if (done !== last) console.log(`[bench]   ${done}/${n} final entries`);
    last = done;
  }, 2000);
  await watcher.waitFor(() => ids.every((id) => seenAt.has(id)), 600_000);
  clearInterval(progress);
  const throughputMs = Math.max(...ids.map((id) => seenAt.get(id)!)) - t0;
  const throughput = Math.round((n / throughputMs) * 1000);

  return { n, sentMs, throughputMs, throughput };
}

/** 2. Latency at a steady rate, send to final entry on the topic. */
async function latencyPhase(client: DecisionClient, watcher: JournalWatcher, seenAt: Map<string, number>, make: Make, rate: number, seconds: number) {
  const total = rate * seconds;
  const ltag = `l${Date.now().toString(36)}`;
  console.log(`[bench] latency: ${total} decisions at ${rate}/s`);
  const sentAt = new Map<string, number>();
  const tickMs = 50;
  const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
  const start = performance.now();
  for (let i = 0; i < total; i += perTick) {
    const due = start + (i / rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = Array.from({ length: Math.min(perTick, total - i) }, (_, k) => make(ltag, i + k));
    const at = performance.now();
    batch.forEach((d) => sentAt.set(d.decisionId, at));
    await client.send(batch);
  }
  await watcher.waitFor(() => [...sentAt.keys()].every((id) => seenAt.has(id)), 300_000);
  return [...sentAt].map(([id, at]) => seenAt.get(id)! - at).sort((a, b) => a - b);

}

function printResults(results: { throughputPerSecond: number; decisions: number; endToEndMs: number; produceMs: number; latency: { rate: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number }; memory: Record<'authorizer' | 'dispatcher', { rssMb: number; peakRssMb: number }> }): void {
  const { throughputPerSecond: throughput, decisions: n, latency: { rate } } = results;
  console.log(`[bench] throughput: ${throughput} decisions/s end to end (${n} in ${results.endToEndMs} ms; producing took ${results.produceMs} ms)`);
  console.log(
    `[bench] latency at ${rate}/s: p50 ${results.latency.p50Ms} ms, p95 ${results.latency.p95Ms} ms, p99 ${results.latency.p99Ms} ms, max ${results.latency.maxMs} ms`,
  );
  console.log(
    `[bench] memory: authorizer ${results.memory.authorizer.rssMb} MB (peak ${results.memory.authorizer.peakRssMb}), dispatcher ${results.memory.dispatcher.rssMb} MB (peak ${results.memory.dispatcher.peakRssMb})`,
  );
}

async function main(): Promise<void> {
  const env = loadConfig(
    z.object({
      KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
      ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
      DEMO_ISSUER: z.string().min(1),
      DEMO_ISSUER_KEY: z.string().min(1),
      BENCH_DECISIONS: envInt(20000, 100),
      BENCH_RATE: envInt(500, 10),
      BENCH_RATE_SECONDS: envInt(20, 1),
      BENCH_PIDS: z.string().regex(/^\d+(,\d+)*$/),
    }),
  );
  const brokers = env.KAFKA_BROKERS.split(',');
  const topics = topicsFor(env.ARVIS_TOPIC_PREFIX);
  const identity = await mintIdentityToken(
    { issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY },
    { principal: 'bench', tenant: 'bench', serviceId: 'bench-agent', sessionId: 'bench' },
    { expiresInS: 3600 },
  );
  const seenAt = new Map<string, number>();
  const watcher = new JournalWatcher(brokers, topics, (e) => {
    if (FINAL.has(e.kind) && !seenAt.has(e.decisionId)) seenAt.set(e.decisionId, performance.now());
  });
  await watcher.start();
  const client = new DecisionClient(brokers, topics, 'arvis-bench');
  const make = (tag: string, i: number): DecisionInput => ({
    decisionId: `${tag}:${i}`,
    runId: `${tag}-run-${i % 64}`,
    causalId: `c${i}`,
    tool: 'notes.append',
    payload: { text: `bench ${i}`, ref: `${tag}:${i}` },
    riskScore: 0.1,
    identity,
  });

  const { n, sentMs, throughputMs, throughput } = await throughputPhase(client, watcher, seenAt, make, env.BENCH_DECISIONS);
  const rate = env.BENCH_RATE;
  const latencies = await latencyPhase(client, watcher, seenAt, make, rate, env.BENCH_RATE_SECONDS);

  const pids = env.BENCH_PIDS.split(',').map(Number);
  const results = {
    decisions: n,
    produceMs: Math.round(sentMs),
    endToEndMs: Math.round(throughputMs),
    throughputPerSecond: throughput,
    latency: {
      rate,
      count: latencies.length,
      p50Ms: Math.round(percentile(latencies, 50)),
      p95Ms: Math.round(percentile(latencies, 95)),
      p99Ms: Math.round(percentile(latencies, 99)),
      maxMs: Math.round(latencies[latencies.length - 1]),
    },
    memory: { authorizer: memory(pids[0]), dispatcher: memory(pids[1]) },
    duplicatesOnJournalTopic: watcher.duplicatesSeen,
  };
  printResults(results);
  writeFileSync(join(__dirname, '..', '..', '.data', 'bench-results.json'), JSON.stringify(results, null, 2));
  await client.close();
  await watcher.stop();
}

main().catch((e: Error) => {
  console.error(`[bench] ${e.stack ?? e.message}`);
  process.exit(1);
});
