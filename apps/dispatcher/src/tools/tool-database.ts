import type { OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';

/**
 * The tools' own connections, apart from the dispatcher's transactions: a tool body runs after
 * effect_started has committed and can never join or hold open the dispatcher's transaction.
 */
export class ToolDatabase extends Pool implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}
