import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { Pool } from 'pg';
import { z } from 'zod';
import { envInt, envString, loadConfig, topicsFor } from '@arvis/config';
import { createKafka, ensureTopics } from '@arvis/kafka';
import { LEDGER_POOL } from './pool-packages';
import { applyMigrations } from '@arvis/persistence';
import { localToolPackages, migrateToolPackages } from '../local-tools';
import { createPoolTopics } from '../pool-topics';

const run = promisify(execFile);
export const ROOT = join(__dirname, '..', '..', '..');
export const DATA = join(ROOT, '.data');
const PG_BASE = 'postgresql://postgres@127.0.0.1:5432';

const ChaosEnv = z.object({
  KAFKA_PORT: envInt(9094, 1, 65535),
  KAFKA_CONTROLLER_PORT: envInt(19094, 1, 65535),
  /** Same meaning as for the e2e specs: isolates the database name and the app ports. */
  ARVIS_TEST_NAMESPACE: z.preprocess((v) => (v === undefined ? '' : v), z.string().regex(/^[A-Za-z0-9_]*$/)),
  ARVIS_TEST_PORT_OFFSET: envInt(0, 0, 50000),
  PG_CLUSTER_VERSION: envString('15'),
  PG_CLUSTER_NAME: envString('main'),
  PATH: envString('/usr/local/bin:/usr/bin:/bin'),
  HOME: envString('/root'),
  JAVA_HOME: z.string().optional(),
});
export type ChaosEnv = z.output<typeof ChaosEnv>;

export const loadChaosEnv = (): ChaosEnv => loadConfig(ChaosEnv);

export const databaseNameOf = (env: ChaosEnv) => `arvis_${env.ARVIS_TEST_NAMESPACE}chaos`.toLowerCase();

/** scripts/kafka.sh with the suite's own ports and data directory. */
export class Broker {
  constructor(private readonly env: ChaosEnv) {}

  get address(): string {
    return `127.0.0.1:${this.env.KAFKA_PORT}`;
  }

  private async kafkaSh(cmd: 'start' | 'stop' | 'status'): Promise<void> {
    const { PATH, HOME, JAVA_HOME } = this.env;
    await run('bash', [join(ROOT, 'scripts', 'kafka.sh'), cmd], {
      env: {
        PATH,
        HOME,
        ...(JAVA_HOME ? { JAVA_HOME } : {}),
        KAFKA_PORT: String(this.env.KAFKA_PORT),
        KAFKA_CONTROLLER_PORT: String(this.env.KAFKA_CONTROLLER_PORT),
        KAFKA_DATA_DIR: join(DATA, 'chaos', `kafka-${this.env.KAFKA_PORT}`),
      },
      timeout: 120_000,
    });
  }

  start = () => this.kafkaSh('start');
  stop = () => this.kafkaSh('stop');

  /** The broker is not the suite's child: whether it is still up is asked at the end. */
  async isRunning(): Promise<boolean> {
    try {
      await this.kafkaSh('status');
      return true;
    } catch {
      return false;
    }
  }
}

/** A fresh database (dropped, recreated, migrated) and a fresh topic prefix with its topics. */
export async function prepareStore(env: ChaosEnv, broker: Broker, prefix: string): Promise<string> {
  const db = databaseNameOf(env);
  const admin = new Pool({ connectionString: `${PG_BASE}/postgres`, max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const url = `${PG_BASE}/${db}`;
  await applyMigrations(url, join(ROOT, 'prisma', 'migrations'));
  await migrateToolPackages(url, localToolPackages(ROOT));
  const kafka = createKafka({ brokers: [broker.address], clientId: 'arvis-chaos-setup' });
  await ensureTopics(kafka, topicsFor(prefix), { partitions: 6, journalRetentionMs: -1 });
  // The ledger pool's intents topic (ADR 0081), beside the project's.
  await createPoolTopics(kafka, topicsFor(prefix), [LEDGER_POOL]);
  return url;
}

/** The machine's PostgreSQL cluster (shared: only restarted when the schedule says so). */
export class Postgres {
  constructor(private readonly env: ChaosEnv) {}

  private ctl(action: 'restart' | 'start') {
    return run('pg_ctlcluster', ['--skip-systemctl-redirect', this.env.PG_CLUSTER_VERSION, this.env.PG_CLUSTER_NAME, action], { timeout: 60_000 });
  }

  restart = () => this.ctl('restart');

  async isReady(): Promise<boolean> {
    try {
      await run('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432'], { timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  }

  /** Started again whatever happened; called from the suite's finally. */
  async ensureStarted(): Promise<void> {
    if (await this.isReady()) return;
    await this.ctl('start').catch(() => undefined);
    for (let i = 0; i < 100 && !(await this.isReady()); i++) await new Promise((r) => setTimeout(r, 200));
  }

  /** pg_terminate_backend on every other backend of one database; returns how many. */
  async terminateBackends(database: string): Promise<number> {
    const admin = new Pool({ connectionString: `${PG_BASE}/postgres`, max: 1 });
    admin.on('error', () => undefined);
    try {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()) t',
        [database],
      );
      return rows[0].n;
    } finally {
      await admin.end();
    }
  }
}

/** `npm run cli -- verify` on the suite's database: the hash chain and bijections (reported, not a check). */
export async function verifyJournal(env: ChaosEnv, databaseUrl: string): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), 'verify'], {
      env: { PATH: env.PATH, DATABASE_URL: databaseUrl },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { exitCode: 0, output: stdout.trim().split('\n').slice(-6).join('\n') };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    const text = `${err.stdout ?? ''}${err.stderr ?? ''}` || err.message;
    return { exitCode: typeof err.code === 'number' ? err.code : -1, output: text.trim().split('\n').slice(0, 8).join('\n') };
  }
}
