// Work per decision, counted rather than timed, so it can be compared between builds on a machine
// that is not quiet: the step database's commits and row writes (pg_stat_database and
// pg_stat_user_tables) and the broker's requests by API (its JMX request metrics, reached by
// starting the broker JVM's management agent with jcmd). Both are sampled at the window's ends.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

export interface RowCounts {
  inserted: number;
  updated: number;
  hotUpdated: number;
  deleted: number;
}

export interface DatabaseCounts extends RowCounts {
  commits: number;
  /** The same row counts by table (pg_stat_user_tables), to see which table a change moved. */
  tables?: Record<string, RowCounts>;
}

export interface WorkSample {
  database: DatabaseCounts | null;
  brokerRequests: Map<string, number> | null;
}

/** Per decision over a window; null where either end could not be read. */
export interface WorkFigures {
  database: (Omit<DatabaseCounts, 'tables'> & { hotPercent: number | null; tables?: Record<string, RowCounts> }) | null;
  /**
   * Requests by API (capitalised: Produce, Fetch, ...) and bytesIn, bytesOut, messagesIn, per
   * decision; the bench's own producer and journal consumer are in it (the same for every build).
   */
  brokerRequests: Record<string, number> | null;
}

/**
 * The database's counters. PostgreSQL publishes a backend's counts when its transaction ends, at
 * most once a second, so a window's figures carry up to about a second's work from either edge.
 */
export async function databaseCounts(databaseUrl: string): Promise<DatabaseCounts | null> {
  const pg = new Client({ connectionString: databaseUrl });
  try {
    await pg.connect();
    const { rows } = await pg.query<Record<keyof DatabaseCounts, string>>(`
      SELECT d.xact_commit AS commits, d.tup_inserted AS inserted, d.tup_updated AS updated, d.tup_deleted AS deleted,
             (SELECT coalesce(sum(n_tup_hot_upd), 0) FROM pg_stat_user_tables) AS "hotUpdated"
      FROM pg_stat_database d WHERE d.datname = current_database()`);
    const r = rows[0];
    const byTable = await pg.query<{ relname: string; ins: string; upd: string; hot: string; del: string }>(
      'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables',
    );
    const tables: Record<string, RowCounts> = {};
    for (const t of byTable.rows) tables[t.relname] = { inserted: Number(t.ins), updated: Number(t.upd), hotUpdated: Number(t.hot), deleted: Number(t.del) };
    return { commits: Number(r.commits), inserted: Number(r.inserted), updated: Number(r.updated), hotUpdated: Number(r.hotUpdated), deleted: Number(r.deleted), tables };
  } catch {
    return null;
  } finally {
    await pg.end().catch(() => undefined);
  }
}

/** Reads the broker's request counts through JMX, once `openBrokerJmx` has succeeded. */
export class BrokerRequestCounter {
  private constructor(
    private readonly port: number,
    private readonly classDir: string,
  ) {}

  /**
   * Starts the broker JVM's JMX agent on `port` (loopback, no authentication: a bench broker on a
   * development machine) and compiles the reader. Null, with the reason, when the JDK's jcmd or
   * javac is missing or the agent does not start: the report then says "not counted".
   */
  static open(brokerPid: number, port: number, workDir: string): { counter: BrokerRequestCounter } | { error: string } {
    const classDir = join(workDir, 'jmx');
    try {
      mkdirSync(classDir, { recursive: true });
      const source = join(__dirname, '..', '..', '..', 'scripts', 'bench', 'jmx', 'BrokerRequests.java');
      const compiled = join(classDir, 'BrokerRequests.class');
      if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(source).mtimeMs) execFileSync('javac', ['-d', classDir, source], { stdio: 'pipe' });
      const out = execFileSync(
        'jcmd',
        [String(brokerPid), 'ManagementAgent.start', `jmxremote.port=${port}`, `jmxremote.rmi.port=${port}`, 'jmxremote.authenticate=false', 'jmxremote.ssl=false'],
        { encoding: 'utf8', stdio: 'pipe' },
      );
      // A second start with the same settings is refused; the agent from the first one serves.
      if (!/successfully|already/i.test(out)) return { error: out.trim().split('\n').pop() ?? 'jcmd gave no answer' };
      return { counter: new BrokerRequestCounter(port, classDir) };
    } catch (e) {
      const err = e as { stderr?: Buffer | string; message: string };
      const text = `${err.stderr ?? ''}`.trim() || err.message;
      if (/already/i.test(text)) return { counter: new BrokerRequestCounter(port, classDir) };
      return { error: text.split('\n')[0] };
    }
  }

  async sample(): Promise<Map<string, number> | null> {
    try {
      const { stdout } = await run('java', ['-cp', this.classDir, 'BrokerRequests', String(this.port)], { timeout: 30_000 });
      return parseRequestCounts(stdout);
    } catch {
      return null;
    }
  }
}

export function parseRequestCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [api, n] = line.trim().split('\t');
    if (api && n !== undefined && Number.isFinite(Number(n))) counts.set(api, Number(n));
  }
  return counts;
}

/** Each table's growth per decision; tables that did not move are left out. */
function tableFigures(a: Record<string, RowCounts> | undefined, b: Record<string, RowCounts> | undefined, per: (x: number) => number): Record<string, RowCounts> | null {
  if (!a || !b) return null;
  const out: Record<string, RowCounts> = {};
  for (const [name, end] of Object.entries(b)) {
    const start = a[name] ?? { inserted: 0, updated: 0, hotUpdated: 0, deleted: 0 };
    const f = { inserted: per(end.inserted - start.inserted), updated: per(end.updated - start.updated), hotUpdated: per(end.hotUpdated - start.hotUpdated), deleted: per(end.deleted - start.deleted) };
    if (f.inserted || f.updated || f.deleted) out[name] = f;
  }
  return out;
}

export function workFigures(a: WorkSample, b: WorkSample, decisions: number): WorkFigures {
  const per = (x: number) => (decisions > 0 ? x / decisions : 0);
  let database: WorkFigures['database'] = null;
  if (a.database && b.database) {
    const d = (k: keyof RowCounts | 'commits') => b.database![k] - a.database![k];
    const updated = d('updated');
    database = {
      commits: per(d('commits')),
      inserted: per(d('inserted')),
      updated: per(updated),
      hotUpdated: per(d('hotUpdated')),
      deleted: per(d('deleted')),
      hotPercent: updated > 0 ? (d('hotUpdated') / updated) * 100 : null,
    };
    const tables = tableFigures(a.database.tables, b.database.tables, per);
    if (tables) database.tables = tables;
  }
  let brokerRequests: WorkFigures['brokerRequests'] = null;
  if (a.brokerRequests && b.brokerRequests) {
    brokerRequests = {};
    for (const [api, n] of b.brokerRequests) {
      const delta = n - (a.brokerRequests.get(api) ?? 0);
      if (delta > 0) brokerRequests[api] = per(delta);
    }
  }
  return { database, brokerRequests };
}
