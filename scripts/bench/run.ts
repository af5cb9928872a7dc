// One measurement step of one build: fresh database and topics, both apps started, a short warm-up,
// then the load with /proc and the authorizer's token-cache counters sampled at both ends of the
// window, the final entries counted, optionally the idle phase, then everything stopped again.
import { join } from 'node:path';
import { topicsFor } from '@arvis/config';
import { DecisionClient } from '@arvis/decision-client';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { LatencyProbe } from './latency';
import { BENCH_CALLER, decisionMaker, expectedFinals, sendAtOnce, sendPaced, type LoadKind, type SentLoad } from './load';
import { cacheWindow, readCacheCounts } from './metrics';
import { cpuFigures, idleFigures, peakRssMb, sampleIdle, sampleWindow, type Role } from './proc';
import { IDLE_SETTLE_MS, type IdleResult, type StepResult } from './results';
import { freshStore, startApps, type Variant } from './services';
import { achievedRate, summarize } from './stats';
import { databaseCounts, workFigures, type BrokerRequestCounter, type WorkSample } from './work';

/** Decisions sent and awaited before each measured window: connections, JIT and pools warm. */
export const WARMUP_DECISIONS = 200;

export type Step = { kind: 'throughput'; decisions: number } | { kind: 'sweep'; rate: number; seconds: number };

export interface StepContext {
  brokers: string[];
  brokerPid: number;
  basePort: number;
  logDir: string;
  /** Profile each app's CPU per step (--cpu-prof). */
  cpuProf?: boolean;
  load: LoadKind;
  say: (line: string) => void;
  /** The broker's request counts (JMX), when they could be reached. */
  brokerRequests?: BrokerRequestCounter;
}

export interface StepOutcome {
  result: StepResult;
  peakRssMb: Record<string, number>;
  duplicates: number;
  missing: number;
  /** When the step was asked for the idle phase. */
  idle?: IdleResult;
}

/**
 * The host's gate data the realistic load's mail.send needs (the tests and operations.md write
 * the same rows): the bench caller's "email" consent and the bench tenant's egress to smtp-relay.
 */
export async function grantBenchGates(databaseUrl: string): Promise<void> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    await pg.query(`INSERT INTO consent_grants (tenant, principal, consent_key) VALUES ($1, $2, 'email')`, [BENCH_CALLER.tenant, BENCH_CALLER.principal]);
    await pg.query(`INSERT INTO egress_policies (tenant, provider) VALUES ($1, 'smtp-relay')`, [BENCH_CALLER.tenant]);
  } finally {
    await pg.end();
  }
}

/** Final journal entries of the step's decisions (ids `<tag>:<i>`), by kind: the journal keeps at most one per decision (final_decision_id is unique). */
export async function finalEntries(databaseUrl: string, tag: string): Promise<Record<string, number>> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ kind: string; n: string }>(`SELECT kind, count(*) AS n FROM journal WHERE final_decision_id LIKE $1 GROUP BY kind ORDER BY kind`, [`${tag}:%`]);
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
  } finally {
    await pg.end();
  }
}

async function sampleWork(ctx: StepContext, databaseUrl: string): Promise<WorkSample> {
  const [database, brokerRequests] = await Promise.all([databaseCounts(databaseUrl), ctx.brokerRequests?.sample() ?? Promise.resolve(null)]);
  return { database, brokerRequests };
}

/** CPU % of a core and wake-ups/s of the apps and the broker over `seconds` with no load. */
async function idlePhase(roles: { name: string; pid: number }[], seconds: number, say: (line: string) => void): Promise<IdleResult> {
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  say(`  idle: ${seconds} s with no load`);
  const a = roles.map((r) => sampleIdle(r.pid));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = roles.map((r) => sampleIdle(r.pid));
  return { seconds, roles: Object.fromEntries(roles.map((r, i) => [r.name, idleFigures(a[i], b[i])])) };
}

/**
 * --idle-only: fresh store, both apps started and warmed up, the bench's journal consumer closed,
 * the idle window; then one decision sent and timed to its final entry, which shows whether an
 * app that idled long still takes up work promptly (ADR 0059). The bench's producer stays
 * connected through the window (it sends nothing and has no heartbeat), so the timed decision
 * does not carry a connection set-up.
 */
export async function measureIdleOnly(ctx: StepContext, v: Variant, baseEnv: Record<string, string>, index: number, idleSeconds: number): Promise<IdleResult> {
  const prefix = `bench-${Date.now().toString(36)}-idle${index}.`;
  const env: Record<string, string> = { ...baseEnv, ARVIS_TOPIC_PREFIX: prefix };
  await freshStore(v, env);
  if (ctx.load === 'realistic') await grantBenchGates(env.DATABASE_URL);
  const apps = await startApps(v, env, ctx.basePort, ctx.logDir, ctx.cpuProf ? join(ctx.logDir, 'profiles', `idle-${index}`) : undefined);
  const client = new DecisionClient(ctx.brokers, topicsFor(prefix), 'arvis-bench');
  try {
    const make = await decisionMaker({ issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY }, ctx.load);
    await withProbe(ctx, prefix, async (probe) => {
      const warm = await sendAtOnce(client, probe, make, 'warm', WARMUP_DECISIONS);
      if ((await probe.waitAll(warm.ids, 120_000)) > 0) throw new Error(`${v.label}: the warm-up decisions did not all complete; see ${ctx.logDir}`);
    });
    const idle = await idlePhase(
      [
        { name: 'authorizer', pid: apps.pids.authorizer },
        { name: 'dispatcher', pid: apps.pids.dispatcher },
        { name: 'broker', pid: ctx.brokerPid },
      ],
      idleSeconds,
      ctx.say,
    );
    // The probe subscribes before the send: its own start is not part of the decision's time.
    idle.afterIdleMs = await withProbe(ctx, prefix, async (probe) => {
      const one = await sendAtOnce(client, probe, make, 'after-idle', 1);
      if ((await probe.waitAll(one.ids, 60_000)) > 0) return null;
      return Math.round(probe.measure(one.ids).latencies[0]);
    });
    return idle;
  } finally {
    await client.close().catch(() => undefined);
    await apps.stop();
    await deleteTopics(ctx.brokers, prefix).catch(() => undefined);
  }
}

async function withProbe<T>(ctx: StepContext, prefix: string, use: (probe: LatencyProbe) => Promise<T>): Promise<T> {
  const probe = new LatencyProbe(ctx.brokers, topicsFor(prefix));
  try {
    await probe.start();
    return await use(probe);
  } finally {
    await probe.stop().catch(() => undefined);
  }
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

type Measured = Pick<StepResult, 'cpu' | 'tokenCache' | 'finals' | 'work'>;

function result(step: Step, sent: SentLoad, probe: LatencyProbe, windowMs: number, measured: Measured, load: LoadKind): StepResult {
  const m = probe.measure(sent.ids);
  const completed = m.latencies.length;
  const achieved = step.kind === 'throughput' ? (completed / (m.lastSeen - sent.startedAt)) * 1000 : achievedRate(completed, sent.sendSpanMs, m.firstSeen, m.lastSeen);
  return {
    kind: step.kind,
    offered: step.kind === 'sweep' ? step.rate : null,
    decisions: completed,
    windowMs: Math.round(windowMs),
    achieved: Math.round(achieved * 10) / 10,
    latency: summarize(m.latencies),
    ...measured,
    expectedFinals: expectedFinals(load, sent.ids.length),
  };
}

async function load(step: Step, client: DecisionClient, probe: LatencyProbe, make: Awaited<ReturnType<typeof decisionMaker>>, tag: string): Promise<SentLoad> {
  return step.kind === 'throughput' ? sendAtOnce(client, probe, make, tag, step.decisions) : sendPaced(client, probe, make, tag, step.rate, step.seconds);
}

/** `idleSeconds` > 0: after the window, the idle phase on the same (warm) apps. */
export async function measureStep(ctx: StepContext, v: Variant, baseEnv: Record<string, string>, step: Step, index: number, idleSeconds = 0): Promise<StepOutcome> {
  const prefix = `bench-${Date.now().toString(36)}-${index}.`;
  const env: Record<string, string> = { ...baseEnv, ARVIS_TOPIC_PREFIX: prefix };
  await freshStore(v, env);
  if (ctx.load === 'realistic') await grantBenchGates(env.DATABASE_URL);
  const apps = await startApps(v, env, ctx.basePort, ctx.logDir, ctx.cpuProf ? join(ctx.logDir, 'profiles', `step-${index}`) : undefined);
  const probe = new LatencyProbe(ctx.brokers, topicsFor(prefix));
  const client = new DecisionClient(ctx.brokers, topicsFor(prefix), 'arvis-bench');
  const closeProducer = async () => {
    await client.close().catch(() => undefined);
    await probe.stop().catch(() => undefined);
  };
  try {
    await probe.start();
    const make = await decisionMaker({ issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY }, ctx.load);
    const warm = await sendAtOnce(client, probe, make, 'warm', WARMUP_DECISIONS);
    if ((await probe.waitAll(warm.ids, 120_000)) > 0) throw new Error(`${v.label}: the warm-up decisions did not all complete; see ${ctx.logDir}`);
    const roles: Role[] = [
      { name: 'authorizer', pid: apps.pids.authorizer },
      { name: 'dispatcher', pid: apps.pids.dispatcher },
      { name: 'broker', pid: ctx.brokerPid },
      { name: 'postgres', postgres: true },
      { name: 'producer', pid: process.pid },
    ];
    const cacheA = await readCacheCounts(ctx.basePort);
    const workA = await sampleWork(ctx, env.DATABASE_URL);
    const a = sampleWindow(roles);
    const t0 = performance.now();
    const tag = `m${index}`;
    const sent = await load(step, client, probe, make, tag);
    const missing = await probe.waitAll(sent.ids, 600_000, (done) => ctx.say(`  ${v.label}: ${done}/${sent.ids.length} final entries`));
    const b = sampleWindow(roles);
    const windowMs = performance.now() - t0;
    const tokenCache = cacheWindow(cacheA, await readCacheCounts(ctx.basePort));
    const completed = sent.ids.length - missing;
    const work = workFigures(workA, await sampleWork(ctx, env.DATABASE_URL), completed);
    const finals = await finalEntries(env.DATABASE_URL, tag);
    const measured = { cpu: cpuFigures(a, b, completed), tokenCache, finals, work };
    const out: StepOutcome = { result: result(step, sent, probe, windowMs, measured, ctx.load), peakRssMb: {}, duplicates: probe.duplicates, missing };
    if (idleSeconds > 0) {
      // The bench's own consumer and producer go first: the broker then serves the apps alone.
      await closeProducer();
      const idleRoles = [
        { name: 'authorizer', pid: apps.pids.authorizer },
        { name: 'dispatcher', pid: apps.pids.dispatcher },
        { name: 'broker', pid: ctx.brokerPid },
      ];
      out.idle = await idlePhase(idleRoles, idleSeconds, ctx.say);
    }
    out.peakRssMb = { authorizer: peakRssMb(apps.pids.authorizer), dispatcher: peakRssMb(apps.pids.dispatcher) };
    return out;
  } finally {
    await closeProducer();
    await apps.stop();
    await deleteTopics(ctx.brokers, prefix).catch(() => undefined);
  }
}
