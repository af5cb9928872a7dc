import { busyPercent, idleFigures, msPerDecision, parseContextSwitches, parseMachineTimes, parseProcStat, roleTicks, sampleIdle, type ProcStat } from './proc';

const stat = (pid: number, ppid: number, self: number, child = 0, start = 1000 + pid): ProcStat => ({ pid, comm: 'postgres', ppid, selfTicks: self, childTicks: child, startTicks: start });

describe('bench /proc accounting', () => {
  it('parses /proc/<pid>/stat with a command name holding spaces and parentheses', () => {
    const line = '4242 (my (odd) name) S 1 4242 4242 0 -1 4194304 100 0 0 0 120 30 7 3 20 0 1 0 5555 1000 10 rest';
    expect(parseProcStat(line)).toEqual({ pid: 4242, comm: 'my (odd) name', ppid: 1, selfTicks: 150, childTicks: 10, startTicks: 5555 });
  });

  it('sums a single process as its own difference', () => {
    expect(roleTicks({ procs: [stat(10, 1, 100)] }, { procs: [stat(10, 1, 160)] })).toBe(60);
  });

  it('accounts backends that came, went, or both, through the reaper', () => {
    const start = { reaperPid: 1, procs: [stat(1, 0, 50, 500), stat(2, 1, 100), stat(3, 1, 40)] };
    // pid 2 kept running (+30); pid 3 exited after using 15 more (cutime +55 = its lifetime);
    // pid 4 was born (20); pid 5 was born and exited using 7 (cutime +7); the postmaster used 5.
    const end = { reaperPid: 1, procs: [stat(1, 0, 55, 562), stat(2, 1, 130), stat(4, 1, 20)] };
    expect(roleTicks(start, end)).toBe(30 + 15 + 20 + 7 + 5);
  });

  it('does not mistake a reused pid for the same process', () => {
    const start = { procs: [stat(7, 1, 900, 0, 1)] };
    const end = { procs: [stat(7, 1, 12, 0, 2)] };
    expect(roleTicks(start, end)).toBe(12);
  });

  it('reads machine busy share from /proc/stat', () => {
    const a = parseMachineTimes('cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n');
    const b = parseMachineTimes('cpu  200 0 100 850 50 0 0 0 0 0\n');
    expect(busyPercent(a, b)).toBe(75);
  });

  it('turns ticks into ms per decision', () => {
    expect(msPerDecision(250, 1000)).toBe(2.5);
    expect(msPerDecision(10, 0)).toBeNaN();
  });

  it("reads a thread's voluntary and involuntary context switches from its status", () => {
    const status = 'Name:\tnode\nvoluntary_ctxt_switches:\t1200\nnonvoluntary_ctxt_switches:\t34\n';
    expect(parseContextSwitches(status)).toBe(1234);
  });

  it('gives idle CPU as a share of one core and wake-ups per second', () => {
    expect(idleFigures({ ticks: 100, switches: 1000, at: 0 }, { ticks: 110, switches: 3000, at: 20_000 })).toEqual({ cpuPercentOfCore: 0.5, wakeupsPerS: 100 });
    expect(idleFigures(undefined, { ticks: 1, switches: 1, at: 1 })).toBeNull();
  });

  it('samples this process over all its threads', () => {
    const s = sampleIdle(process.pid)!;
    expect(s.switches).toBeGreaterThan(0);
    expect(sampleIdle(2 ** 22 + 1)).toBeUndefined();
  });
});
