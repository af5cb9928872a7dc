// /proc sampling: CPU time of each process role and of the whole machine, and peak memory.
// The arithmetic is pure (from two samples); the reads are thin wrappers over /proc.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime in /proc (sysconf(_SC_CLK_TCK)): 100 on Linux builds we know of. */
export const CLK_TCK = 100;

export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, in ticks. */
  selfTicks: number;
  /** cutime + cstime: CPU of children this process has reaped, in ticks. */
  childTicks: number;
  /** Start time after boot, in ticks: with the pid, it names one process even if the pid is reused. */
  startTicks: number;
}

/** One line of /proc/<pid>/stat. The command name may hold spaces and parentheses: split after the last ')'. */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const f = text.slice(close + 2).trim().split(/\s+/);
  // f[0] is field 3 (state): field n is f[n - 3].
  const n = (field: number) => Number(f[field - 3]);
  return { pid: Number(text.slice(0, open).trim()), comm: text.slice(open + 1, close), ppid: n(4), selfTicks: n(14) + n(15), childTicks: n(16) + n(17), startTicks: n(22) };
}

/** A role's processes at one instant. `reaper` is the parent that reaps the others (the postmaster), if any. */
export interface RoleSample {
  procs: ProcStat[];
  reaperPid?: number;
}

const key = (p: ProcStat) => `${p.pid}:${p.startTicks}`;

/**
 * CPU ticks a role used between two samples. Processes alive at both ends count their difference,
 * processes born in between count all they used. A process that exited in between is seen through
 * its reaper: the reaper's cutime+cstime grows by that child's whole lifetime, from which the part
 * already counted at the start sample is taken off (children born and gone in between count fully).
 */
export function roleTicks(start: RoleSample, end: RoleSample): number {
  const before = new Map(start.procs.map((p) => [key(p), p]));
  const after = new Map(end.procs.map((p) => [key(p), p]));
  let ticks = 0;
  for (const [k, p] of after) ticks += p.selfTicks - (before.get(k)?.selfTicks ?? 0);
  const reaperBefore = start.procs.find((p) => p.pid === start.reaperPid);
  const reaperAfter = end.procs.find((p) => p.pid === end.reaperPid);
  if (reaperBefore && reaperAfter && key(reaperBefore) === key(reaperAfter)) {
    ticks += reaperAfter.childTicks - reaperBefore.childTicks;
    for (const [k, p] of before) if (!after.has(k) && p.ppid === reaperBefore.pid) ticks -= p.selfTicks;
  }
  return ticks;
}

export interface MachineTimes {
  busy: number;
  total: number;
}

/** The aggregate `cpu` line of /proc/stat: idle and iowait are idle, everything else is busy. */
export function parseMachineTimes(procStat: string): MachineTimes {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no cpu line in /proc/stat');
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - v[3] - v[4], total };
}

/** Share of the machine's CPU time that was busy between two samples, in percent. */
export function busyPercent(a: MachineTimes, b: MachineTimes): number {
  const total = b.total - a.total;
  return total > 0 ? Math.round(((b.busy - a.busy) / total) * 1000) / 10 : NaN;
}

/** Milliseconds of CPU per decision from ticks. */
export function msPerDecision(ticks: number, decisions: number): number {
  return decisions > 0 ? Math.round(((ticks * 1000) / CLK_TCK / decisions) * 1000) / 1000 : NaN;
}

// ---- reads ----

function readStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // gone between listing and reading
  }
}

export const readMachineTimes = (): MachineTimes => parseMachineTimes(readFileSync('/proc/stat', 'utf8'));

/** A process role: a fixed pid, or every PostgreSQL process of the machine's cluster(s). */
export type Role = { name: string; pid: number } | { name: string; postgres: true };

/** Every process named `postgres`; the reaper is the one whose parent is not (the postmaster). */
export function samplePostgres(): RoleSample {
  const procs = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readStat(Number(d)))
    .filter((p): p is ProcStat => p?.comm === 'postgres');
  const pids = new Set(procs.map((p) => p.pid));
  return { procs, reaperPid: procs.find((p) => !pids.has(p.ppid))?.pid };
}

export function sampleRole(role: Role): RoleSample {
  if ('postgres' in role) return samplePostgres();
  const p = readStat(role.pid);
  return { procs: p ? [p] : [] };
}

export interface WindowSample {
  machine: MachineTimes;
  roles: Map<string, RoleSample>;
}

export const sampleWindow = (roles: readonly Role[]): WindowSample => ({
  machine: readMachineTimes(),
  roles: new Map(roles.map((r) => [r.name, sampleRole(r)])),
});

export interface CpuFigures {
  busyPercent: number;
  /** ms of CPU per decision, by role. */
  msPerDecision: Record<string, number>;
}

export function cpuFigures(a: WindowSample, b: WindowSample, decisions: number): CpuFigures {
  const per: Record<string, number> = {};
  for (const [name, s] of a.roles) per[name] = msPerDecision(roleTicks(s, b.roles.get(name) ?? { procs: [] }), decisions);
  return { busyPercent: busyPercent(a.machine, b.machine), msPerDecision: per };
}

/** Peak resident set (VmHWM) of a live process, in MB; NaN once it is gone. */
export function peakRssMb(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

// ---- idle cost ----

/** voluntary_ctxt_switches + nonvoluntary_ctxt_switches of one /proc/<pid>/task/<tid>/status. */
export function parseContextSwitches(status: string): number {
  const v = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1];
  const n = /^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1];
  return Number(v ?? 0) + Number(n ?? 0);
}

/** A process's CPU ticks (all threads) and context switches summed over its live threads. */
export interface IdleSample {
  ticks: number;
  switches: number;
  at: number;
}

/** Undefined once the process is gone. A thread that ended between two samples takes its switches with it. */
export function sampleIdle(pid: number, at = performance.now()): IdleSample | undefined {
  const stat = readStat(pid);
  if (!stat) return undefined;
  let switches = 0;
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  for (const tid of tasks) {
    try {
      switches += parseContextSwitches(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
    } catch {
      // the thread ended between listing and reading
    }
  }
  return { ticks: stat.selfTicks, switches, at };
}

export interface IdleFigures {
  /** CPU time over the window as a share of one core, percent. */
  cpuPercentOfCore: number;
  /** Context switches (voluntary + involuntary, all threads) per second: each is the process waking up or being preempted. */
  wakeupsPerS: number;
}

export function idleFigures(a: IdleSample | undefined, b: IdleSample | undefined): IdleFigures | null {
  if (!a || !b || b.at <= a.at) return null;
  const seconds = (b.at - a.at) / 1000;
  return {
    cpuPercentOfCore: Math.round(((b.ticks - a.ticks) / CLK_TCK / seconds) * 1000) / 10,
    wakeupsPerS: Math.round(((b.switches - a.switches) / seconds) * 10) / 10,
  };
}
