import { hostname } from 'node:os';
import type { Broker, Postgres } from './infra';
import type { DecisionLoad } from './load';
import type { IntentTap } from './intent-tap';
import type { Measure } from './measure';
import type { Supervisor } from './processes';
import type { ScheduledFault } from './schedule';

export interface FaultContext {
  supervisor: Supervisor;
  broker: Broker;
  postgres: Postgres;
  load: DecisionLoad;
  tap: IntentTap;
  measure: Measure;
  database: string;
  /** Seeded: which messages a duplicate fault picks. */
  rng: () => number;
  clock: () => number;
}

export interface FaultRecord extends ScheduledFault {
  startedAtMs: number;
  endedAtMs: number;
  detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TARGET: Partial<Record<ScheduledFault['kind'], string>> = { 'kill-authorizer': 'authorizer', 'kill-relay': 'relay' };

/** Does one fault, including the restart after its pause; never throws (the detail says why). */
export async function runFault(f: ScheduledFault, ctx: FaultContext): Promise<FaultRecord> {
  const startedAtMs = ctx.clock();
  let detail: string;
  try {
    detail = await act(f, ctx);
  } catch (e) {
    detail = `failed: ${(e as Error).message.split('\n')[0]}`;
  }
  return { ...f, startedAtMs, endedAtMs: ctx.clock(), detail };
}

async function act(f: ScheduledFault, ctx: FaultContext): Promise<string> {
  switch (f.kind) {
    case 'kill-authorizer':
    case 'kill-relay':
    case 'kill-dispatcher': {
      const name = f.target ?? TARGET[f.kind]!;
      let inFlight = '';
      // A dispatcher's id is host-pid (its config's default): what it had started and not finished.
      const afterKill = async (pid: number) => {
        const r = await ctx.measure.inFlight(`${hostname()}-${pid}`);
        inFlight = `, ${r.started} effect(s) in flight (${r.marked} body started, ${r.started - r.marked} not)`;
      };
      const killed = await ctx.supervisor.killAndRestart(name, f.pauseMs, f.kind === 'kill-dispatcher' ? afterKill : undefined);
      return killed ? `kill -9 ${name}${inFlight}, restarted` : `${name} was not running; nothing killed`;
    }
    case 'restart-broker':
      await ctx.broker.stop();
      await sleep(f.pauseMs);
      await ctx.broker.start();
      return 'broker stopped and started';
    case 'restart-postgres':
      try {
        await ctx.postgres.restart();
      } finally {
        await ctx.postgres.ensureStarted();
      }
      return 'pg_ctlcluster restart';
    case 'terminate-connections':
      return `${await ctx.postgres.terminateBackends(ctx.database)} backend(s) terminated`;
    case 'duplicate-decisions':
      return `${await ctx.load.duplicate(f.count ?? 1, ctx.rng)} decision(s) sent again`;
    case 'duplicate-intents':
      return `${await ctx.tap.replay(f.count ?? 1, ctx.rng)} intent message(s) published again`;
  }
}

/**
 * Fires every fault at its planned moment, each on its own (a kill's restart or the broker's
 * pause does not delay the next fault); resolves when all of them, restarts included, are done.
 */
export async function runSchedule(schedule: ScheduledFault[], ctx: FaultContext, say: (l: string) => void): Promise<FaultRecord[]> {
  return Promise.all(
    schedule.map(async (f) => {
      await sleep(Math.max(0, f.atMs - ctx.clock()));
      say(`fault ${f.kind}${f.target ? ` (${f.target})` : ''} ...`);
      const r = await runFault(f, ctx);
      say(`fault ${f.kind}: ${r.detail} (${((r.endedAtMs - r.startedAtMs) / 1000).toFixed(1)} s)`);
      return r;
    }),
  );
}
