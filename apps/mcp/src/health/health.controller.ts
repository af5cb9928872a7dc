import { Controller, Get, Header, HttpStatus, Inject, Res, type OnApplicationShutdown } from '@nestjs/common';
import { arvisVersion } from '@arvis/config';
import { MCP_METRICS, type McpMetrics } from './mcp-metrics';

/**
 * Health and metrics on the management port (ADR 0038). The front door keeps no state and holds
 * no connection it must have to answer: ready once listening, not ready once stopping (so a load
 * balancer stops sending it calls while those in flight finish).
 */
@Controller('health')
export class McpHealthController implements OnApplicationShutdown {
  private stopping = false;
  private readonly version = arvisVersion();

  @Get('live')
  live() {
    return { status: 'ok', service: 'mcp', version: this.version };
  }

  @Get('ready')
  ready(@Res({ passthrough: true }) res: { status(code: number): unknown }) {
    if (this.stopping) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: this.stopping ? 'stopping' : 'ok', service: 'mcp', version: this.version };
  }

  onApplicationShutdown(): void {
    this.stopping = true;
  }
}

@Controller('metrics')
export class McpMetricsController {
  constructor(@Inject(MCP_METRICS) private readonly metrics: McpMetrics) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
