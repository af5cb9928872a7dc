import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolConfig } from 'pg';
import { ConfigError } from '@arvis/config';
import { handlePoolErrors } from '@arvis/persistence';

/**
 * The tools' own connections, apart from the dispatcher's transactions: a tool body runs after
 * effect_started has committed and can never join or hold open the dispatcher's transaction.
 */
export class ToolDatabase extends Pool implements OnApplicationShutdown {
  constructor(config: PoolConfig) {
    super(config);
    // Not a field named `log`: pg-pool's Pool has its own `log` method.
    const logger = new Logger(ToolDatabase.name);
    // A dropped idle connection is discarded by the pool; a tool call on a dropped one fails
    // and is classified like any other tool failure.
    handlePoolErrors(this, 'tool database', (m) => logger.warn(m));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}

/** Where each package's bodies connect: its own URL if it has one, else the shared tools' URL. */
export interface ToolDatabaseSettings {
  /** TOOL_DATABASE_URL, or DATABASE_URL when unset. */
  url: string;
  /** TOOL_DATABASE_URLS: package name → URL (its own database role, ADR 0034). */
  perPackage: Record<string, string>;
  poolSize: number;
}

/**
 * One pool per distinct URL, so each package whose URL logs in as its own role reaches only
 * the tables that role is granted; packages sharing a URL share a pool. A URL for a package that
 * is not loaded is a configuration error (a typo would silently leave the package on the shared
 * URL).
 */
export class ToolDatabases implements OnApplicationShutdown {
  private readonly byPackage = new Map<string, ToolDatabase>();
  private readonly pools = new Map<string, ToolDatabase>();

  constructor(packageNames: readonly string[], settings: ToolDatabaseSettings) {
    const unknown = Object.keys(settings.perPackage).filter((n) => !packageNames.includes(n));
    if (unknown.length > 0) {
      throw new ConfigError(unknown.map((n) => `TOOL_DATABASE_URLS: ${n} is not a loaded tool package (loaded: ${packageNames.join(', ')})`));
    }
    for (const name of packageNames) {
      const url = settings.perPackage[name] ?? settings.url;
      let pool = this.pools.get(url);
      if (!pool) this.pools.set(url, (pool = new ToolDatabase({ connectionString: url, max: settings.poolSize })));
      this.byPackage.set(name, pool);
    }
  }

  forPackage(name: string): ToolDatabase {
    const pool = this.byPackage.get(name);
    if (!pool) throw new Error(`no tool database for package ${name}`);
    return pool;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.end()));
  }
}
