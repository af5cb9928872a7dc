import { runService } from '@arvis/runtime';
import { loadToolPackages } from '@arvis/tool-catalog';
import { loadDispatcherConfig } from './config/dispatcher.config';
import { DispatcherModule } from './dispatcher.module';

void runService({
  service: 'dispatcher',
  loadConfig: () => loadDispatcherConfig(),
  // A team that builds its own image passes its packages here as well: { tools: [mine, ...] }.
  module: (c) => DispatcherModule.forRoot(c, { tools: loadToolPackages(c.toolPackages) }),
  kafka: (c) => c.kafka,
  topics: (c) => ({ intents: c.topics.intents }),
  managementPort: (c) => c.managementPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  logFormat: (c) => c.logFormat,
  maxSliceSize: (c) => c.sliceSize,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
});
