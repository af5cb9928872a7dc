import { join } from 'node:path';
import { topicsFor } from '@arvis/config';
import { DEFAULT_TOOL_POOL, type Topics } from '@arvis/contracts';
import { DecisionClient, mintIdentityToken } from '@arvis/decision-client';
import { LOCAL_ADMIN_AUDIENCE } from '../local-keys';
import { appSpecs, issuer } from './apps';
import { runSchedule, type FaultRecord } from './faults';
import { Broker, DATA, databaseNameOf, Postgres, prepareStore, type ChaosEnv } from './infra';
import { IntentTap } from './intent-tap';
import { LEDGER_POOL } from './pool-packages';
import { Approver, DecisionLoad } from './load';
import { Measure, type Progress } from './measure';
import { ChaosOperator } from './operator';
import type { ChaosOptions } from './options';
import { mulberry32 } from './prng';
import { apiPortOf, Supervisor } from './processes';
import type { ScheduledFault } from './schedule';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Parts {
  broker: Broker;
  postgres: Postgres;
  topics: Topics;
  databaseUrl: string;
  supervisor: Supervisor;
  client: DecisionClient;
  tap: IntentTap;
  approver: Approver;
  /** On duty from its scheduled moment (operator-on-duty) to the end of the settle. */
  operator: ChaosOperator;
  load: DecisionLoad;
  measure: Measure;
}

export interface SettleResult {
  quiescent: boolean;
  waitedMs: number;
  last: Progress | null;
  /** Unknown effects the operator had not resolved when the settle ended. */
  unresolvedUnknown: number | null;
}

/** The moving parts of one run and the phases that use them; the caller owns teardown. */
export class ChaosRun {
  readonly t0 = Date.now();
  readonly clock = () => Date.now() - this.t0;
  /** Suite clock (ms since start) when the load began: fault times count from here. */
  loadStartedAt = 0;
  private started: Partial<Parts> = {};

  constructor(readonly opts: ChaosOptions, readonly env: ChaosEnv, readonly stamp: string) {}

  say = (line: string) => console.log(`[chaos ${(this.clock() / 1000).toFixed(1).padStart(6)}s] ${line}`);

  async setup(): Promise<Parts> {
    const p = this.started;
    p.broker = new Broker(this.env);
    p.postgres = new Postgres(this.env);
    this.say(`starting the suite's broker on ${p.broker.address}`);
    await p.broker.start();
    const prefix = `chaos-${this.stamp}.`;
    p.topics = topicsFor(prefix);
    p.databaseUrl = await prepareStore(this.env, p.broker, prefix);
    const specs = appSpecs(this.env, p.databaseUrl, prefix, [p.broker.address]);
    p.supervisor = new Supervisor(specs, join(DATA, 'chaos', 'logs', this.stamp), this.say, this.clock);
    this.say(`starting ${specs.map((s) => `${s.name} :${s.port}`).join(', ')} (logs in .data/chaos/logs/${this.stamp})`);
    await p.supervisor.startAll();
    p.client = new DecisionClient([p.broker.address], p.topics, 'arvis-chaos-load');
    p.tap = new IntentTap([p.broker.address], p.topics, [DEFAULT_TOOL_POOL, LEDGER_POOL]);
    await p.tap.start();
    const iss = issuer();
    const alice = await mintIdentityToken(iss, { principal: 'alice', tenant: 'acme', serviceId: 'chaos-agent', sessionId: 'chaos' }, { expiresInS: 4 * 3600 });
    const carol = await mintIdentityToken(iss, { principal: 'carol', tenant: 'acme', serviceId: 'chaos-approver', roles: ['approver'] }, { expiresInS: 4 * 3600 });
    // The approver API is on the authorizer's API port, not its management port (ADR 0038).
    p.approver = new Approver(apiPortOf(specs[0].port), carol);
    p.approver.start();
    // The admin API takes an operator's token only with the issuer's admin audience (ADR 0036).
    const olga = await mintIdentityToken(iss, { principal: 'olga', tenant: 'acme', serviceId: 'chaos-operator', roles: ['admin'], audience: LOCAL_ADMIN_AUDIENCE }, { expiresInS: 4 * 3600 });
    p.operator = new ChaosOperator(apiPortOf(specs[0].port), olga, p.databaseUrl, () => this.clock() - this.loadStartedAt);
    p.load = new DecisionLoad(p.client, `chaos-${this.opts.seed}-${this.stamp}`, this.opts.seed, this.opts.rate, alice);
    p.measure = new Measure(p.databaseUrl, p.topics);
    return p as Parts;
  }

  /** Load for opts.seconds with the schedule's faults, then every queued decision sent. */
  async loadPhase(p: Parts, schedule: ScheduledFault[]): Promise<FaultRecord[]> {
    this.loadStartedAt = this.clock();
    const sinceLoad = () => this.clock() - this.loadStartedAt;
    const ctx = { ...p, database: databaseNameOf(this.env), rng: mulberry32((this.opts.seed * 31 + 7) >>> 0), clock: sinceLoad };
    p.load.start();
    const progress = setInterval(() => void this.progressLine(p, 'load'), 5000);
    const faults = runSchedule(schedule, ctx, this.say);
    await sleep(this.opts.seconds * 1000);
    p.load.stop();
    this.say(`load stopped: ${p.load.stats.generated} decisions generated`);
    const records = await faults;
    if (!(await p.load.drain(60_000))) this.say('WARNING: some generated decisions could not be sent');
    clearInterval(progress);
    return records;
  }

  private async progressLine(p: Parts, phase: string): Promise<Progress | null> {
    const s = p.load.stats;
    let db = 'database unavailable';
    let pr: Progress | null = null;
    try {
      pr = await p.measure.progress([...p.load.sentIds]);
      db = `finals ${pr.finals}, effects started ${pr.started}, outbox unpublished ${pr.unpublished}`;
    } catch {
      // PostgreSQL restarting or connections terminated: the next line will tell.
    }
    const exits = p.supervisor.exits.filter((e) => !e.caused).length;
    const acts = p.operator.acts.length;
    this.say(`${phase}: sent ${s.sent}/${s.generated} (errors ${s.sendErrors}), approved ${p.approver.approved}${p.approver.rateLimited ? ` (429 ${p.approver.rateLimited})` : ''}, ${db}${acts ? `, operator acts ${acts}` : ''}, unexpected exits ${exits}`);
    return pr;
  }

  /**
   * Waits until every decision has its final entry, nothing is in flight and the operator (when
   * on duty) has resolved every unknown effect, within the bound; the operator is then stopped.
   */
  async settle(p: Parts): Promise<SettleResult> {
    const start = Date.now();
    const bound = this.opts.settleSeconds * 1000;
    let last: Progress | null = null;
    let unresolved: number | null = null;
    let lastSeen = '';
    let lastChange = Date.now();
    try {
      while (Date.now() - start < bound) {
        await sleep(2000);
        const pr = await this.progressLine(p, 'settle');
        unresolved = p.operator.onDuty ? await p.measure.unresolvedUnknown().catch(() => unresolved) : 0;
        const seen = JSON.stringify([pr, unresolved]);
        if (pr && seen !== lastSeen) lastChange = Date.now();
        lastSeen = seen;
        last = pr ?? last;
        if (pr && pr.finals === p.load.stats.sent && pr.started === 0 && pr.unpublished === 0 && unresolved === 0) {
          return { quiescent: true, waitedMs: Date.now() - start, last, unresolvedUnknown: unresolved };
        }
        // Nothing moved for 45 s: recovery (1 s), redelivery (15 s), retries and the operator
        // (whose "not happened" waits at most EFFECT_MAX_OVERRUN_MS, 20 s) would have.
        if (Date.now() - lastChange > 45_000) break;
      }
      return { quiescent: false, waitedMs: Date.now() - start, last, unresolvedUnknown: unresolved };
    } finally {
      await p.operator.stop();
    }
  }

  private tornDown?: Promise<void>;

  /** Stops what setup started, in reverse, whatever state it is in; once, however often called. */
  teardown(): Promise<void> {
    return (this.tornDown ??= this.stopEverything());
  }

  private async stopEverything(): Promise<void> {
    const p = this.started;
    const quietly = async (what: string, f?: () => Promise<unknown>) => {
      try {
        await f?.();
      } catch (e) {
        this.say(`teardown: ${what}: ${(e as Error).message.split('\n')[0]}`);
      }
    };
    p.load?.stop();
    await quietly('approver', p.approver && (() => p.approver!.stop()));
    await quietly('operator', p.operator && (() => p.operator!.stop()));
    await quietly('intent tap', p.tap && (() => p.tap!.stop()));
    await quietly('client', p.client && (() => p.client!.close()));
    await quietly('apps', p.supervisor && (() => p.supervisor!.stopAll()));
    await quietly('broker', p.broker && (() => p.broker!.stop()));
    if (this.opts.pgRestart) await quietly('postgres', p.postgres && (() => p.postgres!.ensureStarted()));
  }
}
