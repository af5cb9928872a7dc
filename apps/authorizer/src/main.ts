import { runService } from '@arvis/runtime';
import { AuthorizerModule } from './authorizer.module';
import { loadAuthorizerConfig } from './config/authorizer.config';

void runService({
  service: 'authorizer',
  loadConfig: () => loadAuthorizerConfig(),
  module: (c) => AuthorizerModule.forRoot(c),
  kafka: (c) => c.kafka,
  topics: (c) => ({ decisions: c.topics.decisions }),
  httpPort: (c) => c.httpPort,
  httpHost: (c) => c.httpHost,
  logLevel: (c) => c.logLevel,
  maxSliceSize: (c) => c.sliceSize,
  dlqMaxRawBytes: (c) => c.dlq.maxRawBytes,
});
