import { runService } from '@arvis/runtime';
import { loadDispatcherConfig } from './config/dispatcher.config';
import { DispatcherModule } from './dispatcher.module';

void runService({
  service: 'dispatcher',
  loadConfig: () => loadDispatcherConfig(),
  module: (c) => DispatcherModule.forRoot(c),
  kafka: (c) => c.kafka,
  topics: (c) => ({ intents: c.topics.intents }),
  httpPort: (c) => c.httpPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  maxSliceSize: (c) => c.sliceSize,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
});
