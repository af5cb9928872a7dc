import { All, Controller, Inject, Logger, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { arvisVersion } from '@arvis/config';
import { errorFields } from '@arvis/runtime';
import type { ToolCatalog } from '@arvis/tool-catalog';
import { CallToolService, TOOL_CATALOG } from '../call-tool/call-tool.service';
import { listTools, READ_RESULT_TOOL } from '../list-tools/list-tools';
import { MCP_METRICS, type McpMetrics } from '../health/mcp-metrics';
import { ReadResultService } from '../read-result/read-result.service';
import type { ToolAnswer } from '../call-tool/tool-answer';
import { toCallToolResult, toolServer, unknownTool, type ToolHandlers } from './tool-server';

/** The MCP endpoint (Streamable HTTP, stateless, JSON responses); the bearer middleware guards it. */
@Controller('mcp')
export class McpController {
  private readonly log = new Logger('Mcp');
  private readonly handlers: ToolHandlers;
  private readonly version = arvisVersion();

  constructor(
    @Inject(TOOL_CATALOG) catalog: ToolCatalog,
    calls: CallToolService,
    results: ReadResultService,
    @Inject(MCP_METRICS) metrics: McpMetrics,
  ) {
    const tools: Tool[] = listTools(catalog);
    const known = new Set(tools.map((t) => t.name));
    const count = (name: string, answer: string) => metrics.toolCalls.inc({ tool: known.has(name) ? name : '(unknown)', answer });
    this.handlers = {
      tools,
      async call(token, name, args, meta) {
        let answer: ToolAnswer | undefined;
        try {
          answer = name === READ_RESULT_TOOL ? await results.read(token, args) : await calls.call(token, name, args, meta);
        } catch (e) {
          count(name, 'failed');
          throw e;
        }
        count(name, answerLabel(answer));
        return answer ? toCallToolResult(answer) : unknownTool(name);
      },
    };
  }

  @All()
  async serve(@Req() req: IncomingMessage & { body?: unknown }, @Res() res: ServerResponse): Promise<void> {
    const server = toolServer(this.handlers, this.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      this.log.error({ msg: 'MCP request failed', ...errorFields(e) });
      if (res.headersSent) return void res.end();
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    }
  }
}

function answerLabel(a: ToolAnswer | undefined): string {
  if (!a) return 'unknown_tool';
  if (a.status === 'final') return a.success ? 'final_success' : 'final_refused';
  return a.status;
}
