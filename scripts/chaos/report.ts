import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FaultRecord } from './faults';
import { ROOT, verifyJournal, type ChaosEnv } from './infra';
import { EFFECT_MAX_OVERRUN_MS } from './apps';
import type { DuplicateKey, Resolutions, UnknownEffect } from './measure';
import { tallyActs, type OperatorAct } from './operator';
import type { ExitRecord } from './processes';
import type { ChaosRun, Parts, SettleResult } from './run';
import { formatTable, verdict, violations, type ChaosCounts, type Check } from './verdict';

export interface Findings {
  counts: ChaosCounts;
  unknown: UnknownEffect[];
  duplicateKeys: DuplicateKey[];
  auditIncomplete: string[];
  capabilitiesRunTwice: number;
  bodiesStarted: number;
  finalsByOutcome: Record<string, number>;
  journalVerify: { exitCode: number; output: string };
  resolutions: Resolutions;
  /** Dispatcher processes that were paused and resumed (and not killed afterwards): their ids. */
  pausedDispatchers: string[];
}

/** Everything the verdict needs, read after quiescence (or after the bound ran out). */
export async function collect(p: Parts, env: ChaosEnv, faults: FaultRecord[]): Promise<Findings> {
  if (!(await p.broker.isRunning())) p.supervisor.recordExternal('broker', 'not running after the load (the suite had started it again)');
  const sent = [...p.load.sentIds];
  const m = p.measure;
  const progress = await m.progress(sent);
  const exec = await m.maxExecutionsPerCapability();
  const perKey = await m.effectsPerKey();
  const unknown = await m.unknownEffects();
  const auditIncomplete = await m.auditIncompleteRuns();
  const pausedDispatchers = pausedDispatcherIds(faults, p.supervisor.exits);
  const late = await m.lateResults(pausedDispatchers);
  const resolutions = await m.resolutions(EFFECT_MAX_OVERRUN_MS);
  const acts = p.operator.acts;
  const counts: ChaosCounts = {
    sent: sent.length,
    finalEntries: progress.finals,
    decisionsWithSeveralFinals: await m.severalFinals(sent),
    maxExecutionsPerCapability: exec.max,
    maxEffectsPerKey: perKey.max,
    keysWithSeveralEffects: perKey.duplicates.length,
    unknownEffects: unknown.length,
    unknownWithoutMarker: unknown.filter((u) => !u.marked).length,
    effectsStillStarted: progress.started,
    auditIncompleteRuns: auditIncomplete.length,
    dlqRecords: await m.dlqRecords(),
    unexpectedExits: p.supervisor.exits.filter((e) => !e.caused).length,
    notStartedButActed: await m.notStartedButActed(),
    lateResults: late.late,
    pausedActedWithoutLateResult: late.actedWithoutLateResult,
    operatorActs: acts.length,
    operatorRefusedMayStillRun: acts.filter((a) => a.outcome === 'effect_may_still_run').length,
    notHappenedWhileMayRun: resolutions.notHappenedWhileMayRun,
    unresolvedUnknown: await m.unresolvedUnknown(),
  };
  return {
    counts,
    unknown,
    duplicateKeys: perKey.duplicates,
    auditIncomplete,
    capabilitiesRunTwice: exec.capabilitiesRunTwice,
    bodiesStarted: exec.bodies,
    finalsByOutcome: await m.finalsByOutcome(sent),
    journalVerify: await verifyJournal(env, p.databaseUrl),
    resolutions,
    pausedDispatchers,
  };
}

/**
 * The dispatchers a pause-dispatcher fault stopped and resumed, as effect dispatcher ids
 * (host-pid); one the suite killed -9 after its pause is left out, since its bodies never came
 * back to record a late result.
 */
export function pausedDispatcherIds(faults: readonly FaultRecord[], exits: readonly ExitRecord[]): string[] {
  const killed = new Set(exits.filter((e) => e.caused && e.signal === 'SIGKILL').map((e) => e.pid));
  return faults.filter((f) => f.kind === 'pause-dispatcher' && f.pid !== undefined && !killed.has(f.pid)).map((f) => `${hostname()}-${f.pid}`);
}

/** The operator's acts in one line: how many, of which kinds, and what came of them. */
export function operatorLine(acts: readonly OperatorAct[], looks: number, r: Resolutions, dlqRecords: number): string {
  const tally = Object.entries(tallyActs(acts))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${n}x ${k}`)
    .join(', ');
  const deadLetters = dlqRecords ? `${dlqRecords} dead letter(s), not re-driven by the suite` : 'no dead letters to re-drive';
  return `operator: ${looks} look(s), ${acts.length} act(s)${tally ? ` (${tally})` : ''}; resolved ${r.completed} completed, ${r.notHappened} not happened; ${deadLetters}`;
}

/** Unknown effects per dispatcher process, named by how that process ended. */
export function unknownByProcess(unknown: UnknownEffect[], exits: ExitRecord[], paused: readonly number[] = []): Record<string, { marked: number; unmarked: number; acted: number }> {
  const host = hostname();
  const out: Record<string, { marked: number; unmarked: number; acted: number }> = {};
  for (const u of unknown) {
    const pid = Number(u.dispatcherId.startsWith(`${host}-`) ? u.dispatcherId.slice(host.length + 1) : NaN);
    const exit = exits.find((e) => e.pid === pid);
    const how = !exit ? (paused.includes(pid) ? 'paused (SIGSTOP) and resumed by the suite' : 'still running') : exit.caused && exit.signal === 'SIGKILL' ? 'killed -9 by the suite' : exit.caused ? 'stopped by the suite' : `exited by itself (code ${exit.code}, signal ${exit.signal})`;
    const key = `${exit?.name ?? 'dispatcher'} pid ${pid}: ${how}`;
    const row = (out[key] ??= { marked: 0, unmarked: 0, acted: 0 });
    if (u.marked) row.marked++;
    else row.unmarked++;
    if (u.acted) row.acted++;
  }
  return out;
}

function groupBy<T>(items: T[], key: (t: T) => string): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const i of items) (out[key(i)] ??= []).push(i);
  return out;
}

export function printAndSave(run: ChaosRun, p: Parts, faults: FaultRecord[], settle: SettleResult, f: Findings): { file: string; checks: Check[] } {
  const checks = verdict(f.counts);
  const exits = p.supervisor.exits;
  const byProcess = unknownByProcess(f.unknown, exits, faults.filter((r) => r.kind === 'pause-dispatcher' && r.pid !== undefined).map((r) => r.pid!));
  const result = {
    seed: run.opts.seed,
    stamp: run.stamp,
    options: run.opts,
    schedule: faults.map(({ atMs, kind, target, pauseMs, count, everyMs }) => ({ atMs, kind, target, pauseMs, count, everyMs })),
    faults,
    load: p.load.stats,
    approver: { approved: p.approver.approved, errors: p.approver.errors, rateLimited: p.approver.rateLimited },
    operator: { looks: p.operator.looks, errors: p.operator.errors, acts: tallyActs(p.operator.acts), resolutions: f.resolutions, log: p.operator.acts.slice(0, 500) },
    pausedDispatchers: f.pausedDispatchers,
    intentsSeenByTap: p.tap.seen,
    settle,
    counts: f.counts,
    checks,
    violations: violations(checks).map((c) => c.name),
    unknownByProcess: byProcess,
    unknownEffects: f.unknown.slice(0, 200),
    duplicateKeys: f.duplicateKeys.slice(0, 200),
    capabilitiesRunTwice: f.capabilitiesRunTwice,
    bodiesStarted: f.bodiesStarted,
    auditIncompleteRuns: f.auditIncomplete,
    finalsByOutcome: f.finalsByOutcome,
    journalVerify: f.journalVerify,
    loadStartedAtMs: run.loadStartedAt,
    exits: exits.map((e) => ({ ...e, sinceLoadMs: e.atMs - run.loadStartedAt })),
  };
  const dir = join(ROOT, 'chaos', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${run.stamp}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  printSummary(run, faults, settle, f, byProcess, exits, checks, p.approver.rateLimited, operatorLine(p.operator.acts, p.operator.looks, f.resolutions, f.counts.dlqRecords));
  return { file, checks };
}

function printSummary(
  run: ChaosRun,
  faults: FaultRecord[],
  settle: SettleResult,
  f: Findings,
  byProcess: ReturnType<typeof unknownByProcess>,
  exits: ExitRecord[],
  checks: Check[],
  approverRateLimited: number,
  operator: string,
): void {
  const out = (s = '') => console.log(s);
  out(`\n=== chaos seed ${run.opts.seed}, ${run.opts.seconds} s at ${run.opts.rate}/s, settled: ${settle.quiescent ? 'yes' : 'NO'} after ${(settle.waitedMs / 1000).toFixed(0)} s${settle.unresolvedUnknown ? ` (${settle.unresolvedUnknown} unknown effect(s) unresolved)` : ''}`);
  for (const r of faults) out(`  planned t+${(r.atMs / 1000).toFixed(1).padStart(5)} s, done t+${(r.startedAtMs / 1000).toFixed(1).padStart(5)} s  ${`${r.kind}${r.target ? ` (${r.target})` : ''}`.padEnd(32)} ${r.detail}`);
  out(`finals by outcome: ${JSON.stringify(f.finalsByOutcome)}`);
  out(approverLine(approverRateLimited));
  out(operator);
  out(`journal verify (cli, reported, not a check): exit ${f.journalVerify.exitCode}: ${f.journalVerify.output.split('\n').slice(0, 3).join(' | ')}`);
  for (const [k, v] of Object.entries(byProcess)) out(`unknown effects of ${k}: ${v.marked} with marker, ${v.unmarked} without (never started), ${v.acted} acted`);
  for (const [tool, keys] of Object.entries(groupBy(f.duplicateKeys, (d) => d.tool))) {
    const sameCap = keys.filter((d) => d.capabilities < d.effects).length;
    out(`${tool}: ${keys.length} idempotency key(s) with several effects (${keys.length - sameCap} from distinct capabilities, ${sameCap} from one capability run twice)`);
  }
  const since = (ms: number) => `t+${((ms - run.loadStartedAt) / 1000).toFixed(1)} s`;
  for (const e of exits.filter((x) => !x.caused)) out(`unexpected exit at ${since(e.atMs)}: ${e.name} pid ${e.pid} code ${e.code} signal ${e.signal}: ${e.reason ?? '?'}`);
  out();
  out(formatTable(checks));
}

/** Says when the suite's own load was refused, so parked transfers it never approved are not read as lost finals. */
export function approverLine(rateLimited: number): string {
  if (rateLimited === 0) return "suite's approver: never refused by the authorizer's rate limit";
  return `suite's approver: refused ${rateLimited} time(s) with 429 by the authorizer's rate limit: transfers still parked waiting for it are the suite's own shortfall, not lost decisions`;
}
