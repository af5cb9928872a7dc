import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { arvisVersion, ConfigError, describeKafkaSecurity } from '@arvis/config';
import { PinoLogger, portGate, PublicErrorFilter, routePrefixes, securityHeaders, startInOrder } from '@arvis/runtime';
import { assembleTools, loadToolPackages, type ToolSet } from '@arvis/tool-catalog';
import { loadMcpConfig, type McpConfig } from './config/mcp.config';
import { MCP_HTTP_CONTROLLERS, McpModule } from './mcp.module';

/**
 * Starts the MCP front door. Not runService: that one brings the database, the outbox relay and
 * the journal rollback check, none of which this process has (it reads and writes no table).
 * The same surface otherwise: exit 78 on bad configuration, JSON logs, the API and management
 * ports apart behind the same gate and headers, and an orderly stop on SIGTERM.
 */
async function main(): Promise<void> {
  let config: McpConfig;
  let tools: ToolSet;
  try {
    config = loadMcpConfig();
    tools = assembleTools(loadToolPackages(config.toolPackages));
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`[mcp] ${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
  const logger = new PinoLogger('mcp', config.logLevel, { format: config.logFormat, version: arvisVersion() });
  const app = await NestFactory.create(McpModule.forRoot(config, tools), { logger, bufferLogs: false });
  app.enableShutdownHooks();
  const ports = { management: config.managementPort, api: config.httpPort };
  app.use(portGate(ports.management, routePrefixes(MCP_HTTP_CONTROLLERS)));
  app.use(securityHeaders());
  app.useGlobalFilters(new PublicErrorFilter());
  await startInOrder(app, async () => undefined, ports, config.httpHost);
  logger.log({ msg: 'ready', managementPort: ports.management, apiPort: ports.api, resource: config.resourceUri, tools: tools.catalog.names().length }, 'Bootstrap');
  logger.log({ msg: 'kafka', brokers: config.kafka.brokers, security: describeKafkaSecurity(config.kafka.security) }, 'Bootstrap');
}

void main();
