import { hostname } from 'node:os';
import type { Broker, Postgres } from './infra';
import type { DecisionLoad } from './load';
import type { IntentTap } from './intent-tap';
import type { Pool } from 'pg';
import type { InFlight, Measure } from './measure';
import type { ChaosOperator } from './operator';
import type { Supervisor } from './processes';
import type { ScheduledFault } from './schedule';

export interface FaultContext {
  supervisor: Supervisor;
  broker: Broker;
  postgres: Postgres;
  load: DecisionLoad;
  tap: IntentTap;
  measure: Measure;
  operator: ChaosOperator;
  database: string;
  /** Seeded: which messages a duplicate fault picks. */
  rng: () => number;
  clock: () => number;
}

export interface FaultRecord extends ScheduledFault {
  startedAtMs: number;
  endedAtMs: number;
  detail: string;
  /** For pause-*: the process stopped and resumed (a dispatcher's id is host-pid). */
  pid?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TARGET: Partial<Record<ScheduledFault['kind'], string>> = { 'kill-authorizer': 'authorizer', 'kill-relay': 'relay' };

/** How long a dispatcher's kill or pause may wait for a moment with a body in flight. */
const CATCH_MS = 6000;

/**
 * A dispatcher is killed or paused at a moment with a body in flight that wrote its marker and
 * has not acted yet (the case recovery cannot close as not started, that its tool cannot tell,
 * and that the operator must not call "not happened" while the body may still run, ADR 0056);
 * after half of CATCH_MS, at any moment with a body in flight (one without a marker is fenced,
 * one that acted is reconciled); failing both, wherever it is then. At a steady load a body is in
 * flight a few milliseconds: most moments have none.
 */
function bodyBegunNotActed(ctx: FaultContext, probe: Pool, seen?: (r: InFlight) => void) {
  let first = 0;
  return async (pid: number): Promise<boolean> => {
    first ||= Date.now();
    const r = await ctx.measure.inFlight(`${hostname()}-${pid}`, probe);
    seen?.(r);
    return r.markedNotActed > 0 || (r.started > 0 && Date.now() - first > CATCH_MS / 2);
  };
}

/** Runs `f` with a probe connection for bodyBegunNotActed's quick looks, closed after. */
async function withProbe<T>(ctx: FaultContext, f: (probe: Pool) => Promise<T>): Promise<T> {
  const probe = ctx.measure.probe();
  try {
    return await f(probe);
  } finally {
    await probe.end().catch(() => undefined);
  }
}

/** Does one fault, including the restart after its pause; never throws (the detail says why). */
export async function runFault(f: ScheduledFault, ctx: FaultContext): Promise<FaultRecord> {
  const startedAtMs = ctx.clock();
  let detail: string;
  const done: { pid?: number } = {};
  try {
    detail = await act(f, ctx, done);
  } catch (e) {
    detail = `failed: ${(e as Error).message.split('\n')[0]}`;
  }
  return { ...f, startedAtMs, endedAtMs: ctx.clock(), detail, ...done };
}

async function act(f: ScheduledFault, ctx: FaultContext, done: { pid?: number }): Promise<string> {
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
      const dispatcher = f.kind === 'kill-dispatcher';
      const r = await withProbe(ctx, (probe) =>
        ctx.supervisor.killAndRestart(name, f.pauseMs, dispatcher ? afterKill : undefined, dispatcher ? bodyBegunNotActed(ctx, probe) : undefined, CATCH_MS),
      );
      const tries = r.tries > 1 ? ` (stopped ${r.tries} times to catch a body in flight)` : '';
      return r.killed ? `kill -9 ${name}${inFlight}${tries}, restarted` : `${name} was not running; nothing killed`;
    }
    case 'pause-dispatcher':
    case 'pause-app': {
      const name = f.target!;
      let inFlight = '';
      const paused = await withProbe(ctx, (probe) => {
        const choose = bodyBegunNotActed(ctx, probe, (r) => (inFlight = `, ${r.started} effect(s) in flight (${r.marked} body started, ${r.markedNotActed} of them not acted yet)`));
        return ctx.supervisor.pauseAndResume(name, f.pauseMs, f.kind === 'pause-dispatcher' ? choose : undefined, CATCH_MS);
      });
      if (!paused) return `${name} was not running; nothing paused`;
      done.pid = paused.pid;
      const tries = paused.tries > 1 ? ` (stopped ${paused.tries} times to catch a body in flight)` : '';
      return `SIGSTOP ${name} pid ${paused.pid}${inFlight}${tries}, ${paused.resumed ? 'SIGCONT' : 'gone before its SIGCONT'} after ${(f.pauseMs / 1000).toFixed(1)} s`;
    }
    case 'operator-on-duty':
      ctx.operator.start(f.everyMs ?? 2000);
      return `operator on duty, a look every ${((f.everyMs ?? 2000) / 1000).toFixed(1)} s until the end of the run`;
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
