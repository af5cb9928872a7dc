import { Inject, Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { ToolSet } from '@arvis/tool-catalog';
import { CallerTokenVerifier } from './authenticate-caller/caller-token.verifier';
import { CallToolService, TOOL_CATALOG } from './call-tool/call-tool.service';
import { MCP_CONFIG, type McpConfig } from './config/mcp.config';
import { ProtectedResourceController } from './describe-resource/protected-resource.controller';
import { McpHealthController, McpMetricsController } from './health/health.controller';
import { MCP_METRICS, mcpMetrics } from './health/mcp-metrics';
import { ReadResultService } from './read-result/read-result.service';
import { McpController } from './serve-mcp/mcp.controller';

/** The API port's controllers: the MCP endpoint and its metadata (the port gate's allow-list). */
export const MCP_HTTP_CONTROLLERS = [McpController, ProtectedResourceController];

/** The MCP front door (ADR 0074): no database, no consumer; a producer and the results API, both with the caller's token. */
@Module({})
export class McpModule implements NestModule {
  constructor(@Inject(MCP_CONFIG) private readonly config: McpConfig) {}

  static forRoot(config: McpConfig, tools: ToolSet): DynamicModule {
    return {
      module: McpModule,
      controllers: [...MCP_HTTP_CONTROLLERS, McpHealthController, McpMetricsController],
      providers: [
        { provide: MCP_CONFIG, useValue: config },
        { provide: TOOL_CATALOG, useValue: tools.catalog },
        { provide: MCP_METRICS, useValue: mcpMetrics() },
        CallToolService,
        ReadResultService,
      ],
    };
  }

  /** A 401 names the metadata (WWW-Authenticate `resource_metadata`, RFC 9728 §5.1), as the MCP authorization spec asks. */
  configure(consumer: MiddlewareConsumer): void {
    const config = this.config;
    const resource = new URL(config.resourceUri);
    consumer
      .apply(
        requireBearerAuth({
          verifier: new CallerTokenVerifier(config.issuers, config.resourceUri),
          expectedResource: resource,
          resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
        }),
      )
      .forRoutes(McpController);
  }
}
