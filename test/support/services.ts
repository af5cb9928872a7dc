import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const DATA = join(ROOT, '.data');
const DIST_MAIN = {
  authorizer: join(ROOT, 'dist', 'apps', 'authorizer', 'src', 'main.js'),
  dispatcher: join(ROOT, 'dist', 'apps', 'dispatcher', 'src', 'main.js'),
  relay: join(ROOT, 'dist', 'apps', 'relay', 'src', 'main.js'),
  mcp: join(ROOT, 'dist', 'apps', 'mcp', 'src', 'main.js'),
};

export type AppName = keyof typeof DIST_MAIN;

// Shifts every app port, so that two checkouts can run their suites side by side on one machine.
export const PORT_OFFSET = Number(process.env.ARVIS_TEST_PORT_OFFSET ?? 0);

/** The authorizer's approver API (and console) listens this far above its management port (not a multiple of 1000: checkouts side by side are offset by thousands). */
export const API_PORT_DISTANCE = 500;

export interface RunningApp {
  name: string;
  /** The management port: health and metrics (ADR 0038). */
  port: number;
  /** The authorizer's approver API and console, the MCP front door's endpoint; undefined for the other apps, which have none. */
  apiPort?: number;
  child: ChildProcess;
  logFile: string;
}

/** Starts one app as a separate OS process (the compiled build) and waits until it is ready. `port` is its management port. */
export async function startApp(
  app: AppName,
  name: string,
  env: Record<string, string> | ((ports: { port: number; apiPort?: number }) => Record<string, string>),
  port: number,
  logDir: string,
  waitReady = true,
): Promise<RunningApp> {
  port += PORT_OFFSET;
  const apiPort = app === 'authorizer' || app === 'mcp' ? port + API_PORT_DISTANCE : undefined;
  const ports = { MANAGEMENT_PORT: String(port), ...(apiPort ? { HTTP_PORT: String(apiPort) } : {}) };
  if (!existsSync(DIST_MAIN[app])) throw new Error(`${DIST_MAIN[app]} missing: run \`npm run build\` first`);
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [DIST_MAIN[app]], {
    // An env made from the ports: the MCP front door's resource URI names its own port.
    env: { PATH: process.env.PATH ?? '', ...(typeof env === 'function' ? env({ port, apiPort }) : env), ...ports },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  if (!waitReady) return { name, port, apiPort, child, logFile };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) during start-up; see ${logFile}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.ok) return { name, port, apiPort, child, logFile };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} not ready after 60 s; see ${logFile}`);
}

/** SIGTERM and wait (graceful); SIGKILL after the grace period. */
export async function stopApp(app: RunningApp, graceMs = 15_000): Promise<number | null> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return app.child.exitCode;
  // 'close', not 'exit': by then the child's output has been read to the end.
  const exited = new Promise<number | null>((r) => app.child.once('close', (code) => r(code)));
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}
