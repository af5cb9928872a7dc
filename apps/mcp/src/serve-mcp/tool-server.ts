import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ResultApiError } from '@arvis/decision-client';
import { toCallToolResult } from '../call-tool/tool-answer';
import { READ_RESULT_TOOL } from '../list-tools/list-tools';

export interface ToolHandlers {
  tools: readonly Tool[];
  call(token: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
}

const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * One MCP server per HTTP request (stateless Streamable HTTP): nothing of one caller is kept for
 * the next, and every request carries, and is judged by, its own token. The low-level Server,
 * not McpServer: the tools' JSON Schemas are the catalog's own (the ones it fingerprints), not
 * ones the SDK would derive again from a package's zod copy.
 */
export function toolServer(handlers: ToolHandlers, version: string): Server {
  const server = new Server({ name: 'arvis', title: 'ARVIS governed tools', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...handlers.tools] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // The bearer middleware ran before: a request without a verified token never gets here.
    const token = extra.authInfo?.token;
    if (!token) return failed('unauthenticated');
    try {
      return await handlers.call(token, request.params.name, request.params.arguments ?? {}, request.params._meta);
    } catch (e) {
      // The authorizer refused the request itself (its token rules are the last word), or was unreachable.
      if (e instanceof ResultApiError) return failed(`the results API answered ${e.status}${e.error ? ` ${e.error}` : ''}`);
      throw e;
    }
  });
  return server;
}

export function unknownTool(name: string): CallToolResult {
  return failed(`unknown tool ${name}; tools/list names them, and ${READ_RESULT_TOOL} reads a pending result`);
}

export { toCallToolResult };
