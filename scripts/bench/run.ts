// One measurement step of one build: fresh database and topics, both apps started, a short warm-up,
// then the load with /proc sampled at both ends of the window, then everything stopped again.
import { topicsFor } from '@arvis/config';
import { DecisionClient } from '@arvis/decision-client';
import { Kafka, logLevel } from 'kafkajs';
import { LatencyProbe } from './latency';
import { decisionMaker, sendAtOnce, sendPaced, type SentLoad } from './load';
import { cpuFigures, peakRssMb, sampleWindow, type Role } from './proc';
import type { StepResult } from './results';
import { freshStore, startApps, type Variant } from './services';
import { achievedRate, summarize } from './stats';

/** Decisions sent and awaited before each measured window: connections, JIT and pools warm. */
export const WARMUP_DECISIONS = 200;

export type Step = { kind: 'throughput'; decisions: number } | { kind: 'sweep'; rate: number; seconds: number };

export interface StepContext {
  brokers: string[];
  brokerPid: number;
  basePort: number;
  logDir: string;
  say: (line: string) => void;
}

export interface StepOutcome {
  result: StepResult;
  peakRssMb: Record<string, number>;
  duplicates: number;
  missing: number;
}

export async function deleteTopics(brokers: string[], prefix: string): Promise<void> {
  const admin = new Kafka({ brokers, clientId: 'arvis-bench-cleanup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: Object.values(topicsFor(prefix)) });
  } finally {
    await admin.disconnect();
  }
}

function result(step: Step, sent: SentLoad, probe: LatencyProbe, windowMs: number, cpu: StepResult['cpu']): StepResult {
  const m = probe.measure(sent.ids);
  const completed = m.latencies.length;
  const achieved = step.kind === 'throughput' ? (completed / (m.lastSeen - sent.startedAt)) * 1000 : achievedRate(completed, sent.sendSpanMs, m.firstSeen, m.lastSeen);
  return { kind: step.kind, offered: step.kind === 'sweep' ? step.rate : null, decisions: completed, windowMs: Math.round(windowMs), achieved: Math.round(achieved * 10) / 10, latency: summarize(m.latencies), cpu };
}

async function load(step: Step, client: DecisionClient, probe: LatencyProbe, make: Awaited<ReturnType<typeof decisionMaker>>, tag: string): Promise<SentLoad> {
  return step.kind === 'throughput' ? sendAtOnce(client, probe, make, tag, step.decisions) : sendPaced(client, probe, make, tag, step.rate, step.seconds);
}

export async function measureStep(ctx: StepContext, v: Variant, baseEnv: Record<string, string>, step: Step, index: number): Promise<StepOutcome> {
  const prefix = `bench-${Date.now().toString(36)}-${index}.`;
  const env: Record<string, string> = { ...baseEnv, ARVIS_TOPIC_PREFIX: prefix };
  await freshStore(v, env);
  const apps = await startApps(v, env, ctx.basePort, ctx.logDir);
  const probe = new LatencyProbe(ctx.brokers, topicsFor(prefix));
  const client = new DecisionClient(ctx.brokers, topicsFor(prefix), 'arvis-bench');
  try {
    await probe.start();
    const make = await decisionMaker({ issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY });
    const warm = await sendAtOnce(client, probe, make, 'warm', WARMUP_DECISIONS);
    if ((await probe.waitAll(warm.ids, 120_000)) > 0) throw new Error(`${v.label}: the warm-up decisions did not all complete; see ${ctx.logDir}`);
    const roles: Role[] = [
      { name: 'authorizer', pid: apps.pids.authorizer },
      { name: 'dispatcher', pid: apps.pids.dispatcher },
      { name: 'broker', pid: ctx.brokerPid },
      { name: 'postgres', postgres: true },
      { name: 'producer', pid: process.pid },
    ];
    const a = sampleWindow(roles);
    const t0 = performance.now();
    const sent = await load(step, client, probe, make, `m${index}`);
    const missing = await probe.waitAll(sent.ids, 600_000, (done) => ctx.say(`  ${v.label}: ${done}/${sent.ids.length} final entries`));
    const b = sampleWindow(roles);
    const windowMs = performance.now() - t0;
    const completed = sent.ids.length - missing;
    const peak = { authorizer: peakRssMb(apps.pids.authorizer), dispatcher: peakRssMb(apps.pids.dispatcher) };
    return { result: result(step, sent, probe, windowMs, cpuFigures(a, b, completed)), peakRssMb: peak, duplicates: probe.duplicates, missing };
  } finally {
    await client.close().catch(() => undefined);
    await probe.stop().catch(() => undefined);
    await apps.stop();
    await deleteTopics(ctx.brokers, prefix).catch(() => undefined);
  }
}
