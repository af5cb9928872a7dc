import { runService } from '@arvis/runtime';
import { loadToolPackages } from '@arvis/tool-catalog';
import { loadDispatcherConfig } from './config/dispatcher.config';
import { poolConsumers } from './config/dispatcher-pools';
import { DispatcherModule } from './dispatcher.module';

void runService({
  service: 'dispatcher',
  loadConfig: () => loadDispatcherConfig(),
  // A team that builds its own image passes its packages here as well: { tools: [mine, ...] }.
  module: (c) => DispatcherModule.forRoot(c, { tools: loadToolPackages(c.toolPackages) }),
  kafka: (c) => c.kafka,
  topics: (c) => ({ intents: c.topics.intents }),
  // One consumer per pool served, in the pool's group (ADR 0081); the shared pool's is today's.
  consumers: (c) => poolConsumers(c),
  managementPort: (c) => c.managementPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  logFormat: (c) => c.logFormat,
  maxSliceSize: (c) => c.sliceSize,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
  heapGrowingPercent: (c) => c.heapGrowingPercent,
});
