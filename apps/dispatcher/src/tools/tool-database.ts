import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolConfig } from 'pg';
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
