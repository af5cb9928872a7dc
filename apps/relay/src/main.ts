import { runService } from '@arvis/runtime';
import { loadRelayConfig } from './relay.config';
import { RelayModule } from './relay.module';

void runService({
  service: 'relay',
  loadConfig: () => loadRelayConfig(),
  module: (c) => RelayModule.forRoot(c),
  kafka: (c) => c.kafka,
  topics: () => ({}),
  managementPort: (c) => c.managementPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  logFormat: (c) => c.logFormat,
  maxSliceSize: () => 1,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
  heapGrowingPercent: (c) => c.heapGrowingPercent,
});
