import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DEFAULT_TOOL_POOL } from '@arvis/contracts';
import { createKafka, ensurePoolTopics } from '@arvis/kafka';
import { ToolCatalog } from '@arvis/tool-catalog';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';

const RETRY_MS = 5000;

/**
 * At start, the intents topic of each tool pool of the catalog besides the shared one (ADR 0080):
 * a row for a topic the broker lacks would hold back every outbox row behind it. One attempt
 * before the consumer starts; while the broker cannot be reached or refuses (a secured broker,
 * where the create-topics job with TOOL_POOLS makes them), it tries again in the background and
 * says why. With the shared pool only, it does nothing at all (no broker round trip).
 */
@Injectable()
export class CreatePoolTopicsService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(CreatePoolTopicsService.name);
  private readonly pools: string[];
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    catalog: ToolCatalog,
  ) {
    this.pools = catalog.pools().filter((p) => p !== DEFAULT_TOOL_POOL);
  }

  async onModuleInit(): Promise<void> {
    if (this.pools.length > 0) await this.attempt();
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
  }

  private async attempt(): Promise<void> {
    try {
      const created = await ensurePoolTopics(createKafka({ ...this.config.kafka, clientId: `${this.config.kafka.clientId}-pool-topics`, connectRetries: 2 }), this.config.topics, this.pools);
      this.log.log({ msg: created.length > 0 ? 'pool intents topics created' : 'pool intents topics present', pools: this.pools.join(','), ...(created.length > 0 ? { topics: created.join(',') } : {}) });
    } catch (e) {
      this.log.error({ msg: 'pool intents topics not ensured; trying again (on a secured broker: npm run topics with TOOL_POOLS)', pools: this.pools.join(','), error: (e as Error).message });
      this.timer = setTimeout(() => void this.attempt(), RETRY_MS);
      this.timer.unref();
    }
  }
}
