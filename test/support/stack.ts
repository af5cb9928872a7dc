import { join } from 'node:path';
import type { Faults } from '@arvis/config';
import { createEnvironment, groupOf, type BrokerAccess, type TestEnvironment } from './environment';
import { API_PORT_DISTANCE, DATA, PORT_OFFSET, startApp, stopApp, type AppName, type RunningApp } from './services';

let nextPort = 13200;

/** The approver API port the next app started here will have if it is an authorizer: for a URL it must be told of before it starts. */
export const nextApiPort = () => nextPort + PORT_OFFSET + API_PORT_DISTANCE;

/** A fault spec's own environment and processes, apart from the suite's shared ones. */
export class Stack {
  readonly apps: RunningApp[] = [];
  private constructor(readonly env: TestEnvironment) {}

  /**
   * toolPackages: packages loaded beside the demo's (paths or module names, as ARVIS_TOOL_PACKAGES takes).
   * kafka: another broker (the secured one), where the topics are created as its admin.
   * journalShards: the journal's chains, as `npm run migrate` gives them with JOURNAL_SHARDS (ADR 0062).
   */
  static async create(name: string, opts: { migrationsDir?: string; toolPackages?: readonly string[]; kafka?: BrokerAccess; journalShards?: number } = {}): Promise<Stack> {
    return new Stack(await createEnvironment(name, opts));
  }

  async start(
    app: AppName,
    name: string,
    opts: { relay?: boolean; faults?: Faults; env?: Record<string, string> | ((ports: { port: number; apiPort?: number }) => Record<string, string>); waitReady?: boolean } = {},
  ): Promise<RunningApp> {
    const env = (ports: { port: number; apiPort?: number }): Record<string, string> => ({
      ...this.env.appEnv,
      RELAY_ENABLED: opts.relay === false ? 'false' : 'true',
      ...(app === 'authorizer' || app === 'dispatcher' ? { KAFKA_GROUP_ID: groupOf(this.env, app) } : {}),
      ...(opts.faults ? { ARVIS_PROFILE: 'test', ARVIS_FAULTS: JSON.stringify(opts.faults) } : {}),
      ...(typeof opts.env === 'function' ? opts.env(ports) : opts.env),
    });
    const running = await startApp(app, `${this.env.name}-${name}`, env, nextPort++, join(DATA, 'test-logs'), opts.waitReady ?? true);
    this.apps.push(running);
    return running;
  }

  async relayStats(app: RunningApp): Promise<{ published: number } | null> {
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/health/ready`);
      return ((await res.json()) as { relay: { published: number } | null }).relay;
    } catch {
      return null;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.apps.map((a) => stopApp(a)));
  }
}

/** Waits for a process to end; resolves with its exit code or the signal that ended it. */
export function exited(app: RunningApp, timeoutMs = 60_000): Promise<string> {
  if (app.child.exitCode !== null) return Promise.resolve(String(app.child.exitCode));
  if (app.child.signalCode) return Promise.resolve(app.child.signalCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${app.name} still running after ${timeoutMs} ms`)), timeoutMs);
    app.child.once('exit', (code, signal) => {
      clearTimeout(t);
      resolve(signal ?? String(code));
    });
  });
}

/**
 * Reads one counter or gauge from a process's /metrics: the sum of its series, or of those whose
 * labels include `labels` (e.g. { pool: 'ledger' }).
 */
export async function metric(app: RunningApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .filter((l) => wanted.every((w) => l.slice(0, l.lastIndexOf(' ')).includes(w)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Throws, naming the app and its log, if any of these processes has ended. */
export function stillRunning(apps: RunningApp[]): void {
  const gone = apps.find((a) => a.child.exitCode !== null || a.child.signalCode !== null);
  if (gone) throw new Error(`${gone.name} exited (${gone.child.exitCode ?? gone.child.signalCode}); see ${gone.logFile}`);
}
