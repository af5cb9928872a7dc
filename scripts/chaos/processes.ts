import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './infra';


/** The authorizer's approver API port, given its management port (spec.port). */
export const apiPortOf = (managementPort: number): number => managementPort + 50;

export type AppKind = 'authorizer' | 'dispatcher' | 'relay';

export interface AppSpec {
  name: string;
  app: AppKind;
  port: number;
  env: Record<string, string>;
}

export interface ExitRecord {
  name: string;
  pid: number;
  code: number | null;
  signal: string | null;
  atMs: number;
  /** True when the suite caused it (its kill -9 or its final stop). */
  caused: boolean;
  /** For an exit the suite did not cause: the process's last fatal log line or error. */
  reason?: string;
}

/** A structured line's msg, and its error field where it has one (ADR 0064: the cause is a field). */
function fatalText(line: string): string {
  try {
    const o = JSON.parse(line) as { msg?: unknown; error?: unknown };
    const msg = typeof o.msg === 'string' ? o.msg : line;
    return typeof o.error === 'string' ? `${msg}: ${o.error}` : msg;
  } catch {
    const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line);
    return msg ? msg[1] : line;
  }
}

/**
 * The last line that says why a process died: a pino fatal/error line, or an uncaught error
 * (with the "Emitted 'error' event on X" line that names the emitter, when node printed one).
 */
export function lastFatalLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i];
    if (/"level":(50|60)/.test(l)) return fatalText(l).slice(0, 300);
    if (/^(\w*Error|error)\b:/.test(l)) {
      const emitter = lines.slice(i).find((x) => x.startsWith("Emitted 'error' event on"));
      return (emitter ? `${l} (${emitter.replace(/ at:$/, '')})` : l).slice(0, 300);
    }
  }
  return undefined;
}

const mainOf = (app: AppKind) => join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (c: ChildProcess | undefined): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null;

/**
 * Runs the apps as separate processes of the compiled build and watches every exit. An exit the
 * suite did not cause is recorded and the app is started again (so the run goes on and later
 * faults still find it), which is what the "unexpected process exits" check counts.
 */
export class Supervisor {
  readonly exits: ExitRecord[] = [];
  private readonly children = new Map<string, ChildProcess>();
  private readonly caused = new WeakSet<ChildProcess>();
  private readonly tails = new WeakMap<ChildProcess, string>();
  private stopping = false;

  constructor(
    private readonly specs: AppSpec[],
    private readonly logDir: string,
    private readonly say: (line: string) => void,
    private readonly clock: () => number,
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  async startAll(): Promise<void> {
    for (const s of this.specs) if (!existsSync(mainOf(s.app))) throw new Error(`${mainOf(s.app)} missing: run \`npm run build\` first`);
    for (const s of this.specs) {
      if (!(await this.start(s.name))) throw new Error(`${s.name} did not become ready; see ${this.logDir}`);
    }
  }

  /** Spawns the app and waits until /health/ready answers; false if it exited or took 60 s. */
  async start(name: string): Promise<boolean> {
    const spec = this.spec(name);
    const log = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
    // spec.port is the management port (health, metrics); the authorizer's API listens above it.
    const ports = { MANAGEMENT_PORT: String(spec.port), ...(spec.app === 'authorizer' ? { HTTP_PORT: String(apiPortOf(spec.port)) } : {}) };
    const child = spawn(process.execPath, [mainOf(spec.app)], { env: { ...spec.env, ...ports }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.tails.set(child, '');
    const keep = (chunk: Buffer) => this.tails.set(child, (this.tails.get(child)! + chunk.toString('utf8')).slice(-16_384));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.set(name, child);
    child.once('exit', (code, signal) => this.onExit(name, child, code, signal));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && alive(child)) {
      if (await this.ready(spec.port)) return true;
      await sleep(200);
    }
    return false;
  }

  private async ready(port: number): Promise<boolean> {
    try {
      return (await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
    } catch {
      return false;
    }
  }

  private onExit(name: string, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const caused = this.caused.has(child);
    const reason = caused ? undefined : lastFatalLine((this.tails.get(child) ?? '').split('\n'));
    this.exits.push({ name, pid: child.pid ?? -1, code, signal, atMs: this.clock(), caused, ...(reason ? { reason } : {}) });
    if (caused || this.stopping) return;
    this.say(`UNEXPECTED EXIT of ${name} (pid ${child.pid}, code ${code}, signal ${signal}): ${reason ?? '?'}; starting it again in 2 s`);
    void sleep(2000).then(() => {
      if (!this.stopping && this.children.get(name) === child) return this.start(name);
    });
  }

  /** An exit seen from outside (the broker is not a child): recorded as not caused by the suite. */
  recordExternal(name: string, reason: string): void {
    this.exits.push({ name, pid: -1, code: null, signal: null, atMs: this.clock(), caused: false, reason });
  }

  /**
   * kill -9, then `afterKill` (what was in flight, while nothing can change it), then after the
   * pause the same app again. With `choose`, the kill waits for a moment it accepts (see
   * stopAtAChosenMoment): the process is killed while stopped there. Returns false if it was not
   * running, and how many stops it took.
   */
  async killAndRestart(
    name: string,
    pauseMs: number,
    afterKill?: (pid: number) => Promise<void>,
    choose?: (pid: number) => Promise<boolean>,
    tryForMs = 0,
  ): Promise<{ killed: boolean; tries: number }> {
    const child = this.children.get(name);
    if (!alive(child)) return { killed: false, tries: 0 };
    this.caused.add(child);
    const gone = new Promise((r) => child.once('exit', r));
    const tries = choose ? await this.stopAtAChosenMoment(child, choose, tryForMs) : 0;
    child.kill('SIGKILL');
    await gone;
    await afterKill?.(child.pid ?? -1).catch(() => undefined);
    await sleep(pauseMs);
    if (!this.stopping && !(await this.start(name))) this.say(`${name} did not become ready after its restart`);
    return { killed: true, tries };
  }

  /**
   * SIGSTOP, then after the pause SIGCONT to the same process: it is not restarted, and comes back
   * with whatever it was doing, its timers overdue (ADR 0056's paused dispatcher). With `choose`,
   * the pause starts at a moment it accepts (see stopAtAChosenMoment). Returns its pid and how
   * many stops it took, or null if it was not running; the resume is skipped (said in `resumed`)
   * if something else ended it meanwhile.
   */
  async pauseAndResume(
    name: string,
    pauseMs: number,
    choose?: (pid: number) => Promise<boolean>,
    tryForMs = 0,
  ): Promise<{ pid: number; resumed: boolean; tries: number } | null> {
    const child = this.children.get(name);
    if (!alive(child)) return null;
    const pid = child.pid ?? -1;
    let tries = 0;
    try {
      tries = choose ? await this.stopAtAChosenMoment(child, choose, tryForMs) : (child.kill('SIGSTOP'), 1);
      await sleep(pauseMs);
    } finally {
      // Even if the suite is stopping: a stopped process would not see its SIGTERM.
      if (alive(child)) child.kill('SIGCONT');
    }
    return { pid, resumed: alive(child), tries };
  }

  /**
   * Stops the process (SIGSTOP) and asks `choose` whether this moment will do (what it has in
   * flight, while nothing of it moves); if not, resumes it and stops it again 60 ms later (time
   * to make progress: resumed for only 5 ms between looks, a dispatcher started no body), for at
   * most `tryForMs`, after which the moment it is stopped at is taken. Leaves it stopped (or
   * gone); returns how many stops it took.
   */
  private async stopAtAChosenMoment(child: ChildProcess, choose: (pid: number) => Promise<boolean>, tryForMs: number): Promise<number> {
    const pid = child.pid ?? -1;
    const until = Date.now() + tryForMs;
    for (let tries = 1; ; tries++) {
      child.kill('SIGSTOP');
      if (Date.now() >= until || (await choose(pid).catch(() => false)) || !alive(child)) return tries;
      child.kill('SIGCONT');
      await sleep(60);
      if (!alive(child)) return tries;
    }
  }

  /** SIGTERM to every app (SIGKILL after 15 s); these exits are the suite's own. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.children.values()].filter(alive).map(async (c) => {
        this.caused.add(c);
        const gone = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
        await gone;
        clearTimeout(t);
      }),
    );
  }

  private spec(name: string): AppSpec {
    const s = this.specs.find((x) => x.name === name);
    if (!s) throw new Error(`no app named ${name}`);
    return s;
  }
}
