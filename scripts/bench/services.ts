// The measured processes: one build's authorizer and dispatcher (the relay runs inside both, as by
// default), each step on a fresh database and fresh topics, set up with that build's own scripts;
// the scale phase starts the build's relay app alone, several times over (scale.ts).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One build to measure: the working tree's, or a commit's export under .data/bench/<sha>. */
export interface Variant {
  label: string;
  root: string;
  commit: string;
}

/** `export NAME='value'` lines (scripts/local-env.ts quotes values in single quotes, ' as '\''). */
export function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  const re = /^export ([A-Za-z_][A-Za-z0-9_]*)='((?:[^']|'\\'')*)'$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) env[m[1]] = m[2].replace(/'\\''/g, "'");
  return env;
}

const node = (root: string, script: string, args: string[], env: Record<string, string>) =>
  run(process.execPath, [join(root, 'dist', script), ...args], { cwd: root, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });

/** The build's local keys and tool package, as its own demo and tests get them. */
export async function variantEnv(v: Variant, base: Record<string, string>): Promise<Record<string, string>> {
  const { stdout } = await node(v.root, 'scripts/local-env.js', [], base);
  return { ...base, ...parseExports(stdout) };
}

/** Drops and re-creates the database with the build's migrations. */
export async function freshDatabase(v: Variant, env: Record<string, string>): Promise<void> {
  await node(v.root, 'scripts/migrate.js', ['--fresh'], env);
}

/** Drops and re-creates the database with the build's migrations; creates the step's topics. */
export async function freshStore(v: Variant, env: Record<string, string>): Promise<void> {
  await freshDatabase(v, env);
  await node(v.root, 'scripts/create-topics.js', [], env);
}

export interface RunningApps {
  pids: Record<'authorizer' | 'dispatcher', number>;
  stop(): Promise<void>;
}

/** The app's /health/ready body when it answers 200, else undefined. */
export async function readyBody(port: number): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const ready = async (port: number): Promise<boolean> => (await readyBody(port)) !== undefined;

/**
 * `port` is where health is asked. A build from before the management port (ADR 0038) serves it
 * on HTTP_PORT; a newer one on MANAGEMENT_PORT, its authorizer's API on HTTP_PORT (kept apart,
 * then, and asked for health too, so either build is seen ready).
 */
const API_PORT_DISTANCE = 100;
function portEnv(app: string, port: number): Record<string, string> {
  if (app !== 'authorizer') return { MANAGEMENT_PORT: String(port), HTTP_PORT: String(port) };
  return { MANAGEMENT_PORT: String(port), HTTP_PORT: String(port + API_PORT_DISTANCE) };
}

/**
 * The Node flags a build ships its app with: those its package.json `start:<app>` script passes
 * before the entry point (`node --max-semi-space-size=8 dist/...`). Each build runs as it ships.
 */
export function shippedNodeFlags(packageJson: string, app: string): string[] {
  const scripts = (JSON.parse(packageJson) as { scripts?: Record<string, string> }).scripts ?? {};
  const m = /^node\s+(.*?)\s*dist\//.exec(scripts[`start:${app}`] ?? '');
  return m ? m[1].split(/\s+/).filter((f) => f.startsWith('--')) : [];
}

/** Starts one app of the build; its output goes to `<logDir>/<label>-<logName>.log`. */
export function spawnApp(v: Variant, app: string, port: number, env: Record<string, string>, logDir: string, logName = app, profileDir?: string): ChildProcess {
  const main = join(v.root, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} missing: the build did not run`);
  const log = createWriteStream(join(logDir, `${v.label}-${logName}.log`), { flags: 'a' });
  const flags = shippedNodeFlags(readFileSync(join(v.root, 'package.json'), 'utf8'), app);
  if (profileDir) flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${v.label.replace(/\W+/g, '-')}-${logName}.cpuprofile`);
  const child = spawn(process.execPath, [...flags, main], { cwd: v.root, env: { ...env, ...portEnv(app, port), KAFKA_GROUP_ID: `${env.ARVIS_TOPIC_PREFIX}${app}` }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return child;
}

export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(t);
}

/** Starts both apps and waits (60 s at most) until each answers /health/ready. */
/** `profileDir`: each app writes a V8 CPU profile there when it stops. */
export async function startApps(v: Variant, env: Record<string, string>, basePort: number, logDir: string, profileDir?: string): Promise<RunningApps> {
  mkdirSync(logDir, { recursive: true });
  const apps = [
    { name: 'authorizer' as const, port: basePort },
    { name: 'dispatcher' as const, port: basePort + 1 },
  ].map((a) => ({ ...a, child: spawnApp(v, a.name, a.port, env, logDir, a.name, profileDir) }));
  const stop = async () => void (await Promise.all(apps.map((a) => stopChild(a.child))));
  for (const a of apps) {
    const deadline = Date.now() + 60_000;
    while (!(await ready(a.port)) && !(a.name === 'authorizer' && (await ready(a.port + API_PORT_DISTANCE)))) {
      if (a.child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`${v.label} ${a.name} did not become ready; see ${logDir}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { pids: { authorizer: apps[0].child.pid!, dispatcher: apps[1].child.pid! }, stop };
}
