import { routePrefixes, runService } from '@arvis/runtime';
import { loadToolPackages } from '@arvis/tool-catalog';
import { AUTHORIZER_HTTP_CONTROLLERS, AuthorizerModule } from './authorizer.module';
import { loadAuthorizerConfig } from './config/authorizer.config';

void runService({
  service: 'authorizer',
  loadConfig: () => loadAuthorizerConfig(),
  // A team that builds its own image passes its packages here as well: { tools: [mine, ...] }.
  module: (c) => AuthorizerModule.forRoot(c, { tools: loadToolPackages(c.toolPackages) }),
  kafka: (c) => c.kafka,
  topics: (c) => ({ decisions: c.topics.decisions }),
  apiPort: (c) => c.httpPort,
  apiRoutes: routePrefixes(AUTHORIZER_HTTP_CONTROLLERS),
  trustProxy: (c) => c.trustProxy,
  managementPort: (c) => c.managementPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  logFormat: (c) => c.logFormat,
  maxSliceSize: (c) => c.sliceSize,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
  heapGrowingPercent: (c) => c.heapGrowingPercent,
});
