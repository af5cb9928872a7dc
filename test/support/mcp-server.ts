import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** One tools/call the server received: its tool, arguments and metadata. */
export interface ReceivedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
}

/**
 * An MCP server over Streamable HTTP (stateless: a fresh protocol server per request), behind a
 * bearer token, whose tool list a spec may change while it runs. It records every call and
 * counts every request, so a spec can tell that nothing at all was sent; `lookup_call` answers
 * what a call with a given idempotency key returned, or that none arrived.
 */
export class TicketsMcpServer {
  readonly calls: ReceivedCall[] = [];
  requests = 0;
  tools: Tool[] = [
    {
      name: 'create_ticket',
      description: 'Opens a support ticket',
      inputSchema: { type: 'object', properties: { title: { type: 'string' }, priority: { type: 'string', enum: ['low', 'high'] } }, required: ['title'], additionalProperties: false },
    },
    {
      name: 'lookup_call',
      description: 'Looks a call up by the idempotency key it carried',
      inputSchema: { type: 'object', properties: { idempotencyKey: { type: 'string' } }, required: ['idempotencyKey'] },
    },
  ];
  /** The result of each call, by the idempotency key in its metadata. */
  private readonly results = new Map<string, { content: unknown[]; structuredContent: Record<string, unknown> }>();
  private readonly http: HttpServer = createServer((req, res) => {
    this.requests += 1;
    if (req.headers.authorization !== `Bearer ${this.token}`) return void res.writeHead(401).end();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = this.protocolServer();
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });

  constructor(private readonly token: string) {}

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.http.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  close = () => new Promise<void>((r) => this.http.close(() => r()));

  private protocolServer(): Server {
    const server = new Server({ name: 'tickets', version: '1.4.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      if (request.params.name === 'lookup_call') {
        const found = this.results.get(String(request.params.arguments?.idempotencyKey));
        return { content: [], structuredContent: found ? { status: 'completed', result: found } : { status: 'none' } };
      }
      const call = { name: request.params.name, arguments: request.params.arguments ?? {}, meta: (request.params._meta ?? {}) as Record<string, unknown> };
      this.calls.push(call);
      const ticket = `T-${this.calls.length}`;
      const result = { content: [{ type: 'text', text: `opened ${ticket}` }], structuredContent: { ticket } };
      this.results.set(String(call.meta['arvis/idempotency-key']), result);
      return result;
    });
    return server;
  }
}
