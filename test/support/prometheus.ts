import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DATA, ROOT } from './services';

/** The shipped rule files, loaded from where they are committed, unchanged. */
export const RULES_DIR = join(ROOT, 'deploy', 'prometheus');

export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
  value: string;
}

export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/**
 * Debian's Prometheus (the `prometheus` package; scripts/test.sh installs it), scraping the given
 * management ports every second with the shipped rules, in a data directory of its own.
 */
export class Prometheus {
  private constructor(readonly url: string, private readonly child: ChildProcess, readonly logFile: string) {}

  static async start(name: string, targets: Record<string, number[]>, ruleFiles: string[]): Promise<Prometheus> {
    const dir = join(DATA, `prometheus-${name}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
      rule_files: ruleFiles.map((f) => join(RULES_DIR, f)),
      scrape_configs: Object.entries(targets).map(([job, ports]) => ({ job_name: job, static_configs: [{ targets: ports.map((p) => `127.0.0.1:${p}`) }] })),
    };
    // JSON is YAML: no YAML writer needed.
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
    const port = await freePort();
    const logFile = join(DATA, 'test-logs', `prometheus-${name}.log`);
    mkdirSync(join(DATA, 'test-logs'), { recursive: true });
    const child = spawn(
      'prometheus',
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = createWriteStream(logFile);
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}; see ${logFile}`);
      const ok = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ok) return new Prometheus(url, child, logFile);
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    throw new Error(`prometheus not ready after 60 s; see ${logFile}`);
  }

  private async api<T>(path: string): Promise<T> {
    const res = await fetch(`${this.url}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  }

  async alerts(): Promise<PromAlert[]> {
    return (await this.api<{ alerts: PromAlert[] }>('/api/v1/alerts')).alerts;
  }

  /** An instant query's vector. */
  async query(expr: string): Promise<PromSeries[]> {
    const data = await this.api<{ resultType: string; result: PromSeries[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`);
    return data.resultType === 'vector' ? data.result : [];
  }

  /** Every rule group as Prometheus loaded it, with each rule's evaluation health. */
  async rules(): Promise<{ name: string; file: string; rules: { name: string; health: string; lastError?: string }[] }[]> {
    return (await this.api<{ groups: { name: string; file: string; rules: { name: string; health: string; lastError?: string }[] }[] }>('/api/v1/rules')).groups;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const closed = new Promise((r) => this.child.once('close', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await closed;
    clearTimeout(timer);
  }
}
