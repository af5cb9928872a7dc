import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { runBody, type BodyResult } from '../run-body';
import type { ToolDatabase, ToolDefinition, ToolEffectContext, ToolLogger } from '../tool';
import type { ToolPackage } from '../tool-package';

/**
 * `@arvis/tool-sdk/testing`: runs a tool's body in a package's own tests exactly as the dispatcher
 * does (the same runBody: input parsing, the body under its timeout and heartbeats, output parsing,
 * classification), and gives it a scratch database on a real PostgreSQL with the package's
 * migrations applied. Needs `pg` (a peer dependency, optional for the main entry point).
 */

/** A line the body logged through `invocation.logger`. */
export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields?: Readonly<Record<string, unknown>>;
}

export interface TestRunOptions {
  db?: ToolDatabase;
  idempotencyKey?: string;
  capabilityId?: string;
  decisionId?: string;
  attempt?: number;
  effectContext?: Partial<ToolEffectContext>;
  /** Filled with the body's log lines. */
  logs?: LoggedLine[];
  /** Whether a heartbeat is written (the dispatcher's database answering); default: always. */
  extendDeadline?: (timeoutMs: number, maxRunMs: number) => Promise<boolean>;
}

const EFFECT_CONTEXT: ToolEffectContext = {
  effectContextFormatVersion: 1,
  principal: 'test-principal',
  tenant: 'test-tenant',
  authenticationSource: 'test',
  authenticationStrength: 'test',
  serviceId: 'test-service',
  sessionIdHash: null,
  processId: 'default',
  runId: 'test-run',
};

const NO_DATABASE: ToolDatabase = {
  query: () => Promise.reject(new Error('no database: pass `db` (toolTestDatabase) to runTool')),
  connect: () => Promise.reject(new Error('no database: pass `db` (toolTestDatabase) to runTool')),
};

/** Runs `tool` on `payload` as the dispatcher would, and returns the classified result. */
export function runTool(tool: ToolDefinition<any, any>, payload: unknown, opts: TestRunOptions = {}): Promise<BodyResult> {
  const id = randomBytes(8).toString('hex');
  const logs = opts.logs ?? [];
  const line = (level: LoggedLine['level']) => (msg: string, fields?: Readonly<Record<string, unknown>>) => void logs.push({ level, msg, ...(fields ? { fields } : {}) });
  const logger: ToolLogger = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
  return runBody(
    tool,
    (controls) =>
      tool.execute({
        ...controls,
        effectContext: { ...EFFECT_CONTEXT, ...opts.effectContext },
        idempotencyKey: opts.idempotencyKey ?? `idem:${id}`,
        capabilityId: opts.capabilityId ?? `cap-${id}`,
        decisionId: opts.decisionId ?? `decision-${id}`,
        attempt: opts.attempt ?? 1,
        db: opts.db ?? NO_DATABASE,
        logger,
      }),
    payload,
    { extendDeadline: opts.extendDeadline ?? (() => Promise.resolve(true)) },
  );
}

/** A scratch database with the package's migrations applied; `close()` drops it. */
export interface ToolTestDatabase extends ToolDatabase {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Creates a database on the PostgreSQL `serverUrl` points to (any database of that server; the
 * role must be allowed to create databases), applies `pkg.migrationsDir`'s `<name>/migration.sql`
 * files in name order, each in a transaction, and opens a pool to it for the tools' `db`.
 */
export async function toolTestDatabase(pkg: Pick<ToolPackage, 'name' | 'migrationsDir'>, serverUrl: string): Promise<ToolTestDatabase> {
  const name = `arvis_tooltest_${randomBytes(6).toString('hex')}`;
  const admin = new Pool({ connectionString: serverUrl, max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool: Pool = new Pool({ connectionString: url.toString(), max: 4 });
  // An idle connection cut by the server (a restart, a terminated backend) is reconnected by the
  // next query, which reports any lasting failure; unhandled, its error event would end the process.
  for (const p of [admin, pool]) p.on('error', () => {});
  const close = async () => {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    for (const sql of migrationsOf(pkg)) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(sql);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      } finally {
        client.release();
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { url: url.toString(), query: (text, params) => pool.query(text, params) as never, connect: () => pool.connect() as never, close };
}

function migrationsOf(pkg: Pick<ToolPackage, 'migrationsDir'>): string[] {
  const dir = pkg.migrationsDir;
  if (dir === undefined) return [];
  return readdirSync(dir)
    .filter((m) => existsSync(join(dir, m, 'migration.sql')))
    .sort()
    .map((m) => readFileSync(join(dir, m, 'migration.sql'), 'utf8'));
}
