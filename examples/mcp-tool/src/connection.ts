import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';

const Settings = z.object({
  MCP_TOOL_URL: z.url({ protocol: /^https?$/ }),
  /** A file holding the bearer token the server expects (a mounted secret, never the value itself). */
  MCP_TOOL_CREDENTIALS_FILE: z.string().min(1).optional(),
});
export interface ServerSettings {
  readonly url: string;
  readonly credentialsFile?: string;
}

/**
 * Read on first use, not at load: the authorizer and the migrate step load this package too and
 * never contact the server, so they need neither its address nor its credentials.
 */
export function serverSettings(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const r = Settings.safeParse(env);
  if (!r.success) throw new Error(`arvis-mcp-tool is not configured: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { url: r.data.MCP_TOOL_URL, credentialsFile: r.data.MCP_TOOL_CREDENTIALS_FILE };
}

/** A connected client; the token is read from its file on each connection, so a rotated secret is picked up. */
export async function connect(settings: ServerSettings, signal?: AbortSignal): Promise<Client> {
  const headers: Record<string, string> = {};
  if (settings.credentialsFile) headers.authorization = `Bearer ${readFileSync(settings.credentialsFile, 'utf8').trim()}`;
  const client = new Client({ name: 'arvis-mcp-tool', version: '0.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(settings.url), { requestInit: { headers, signal } }), { signal });
  return client;
}

/** Every tool the server lists now, following its pages. */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { signal });
    tools.push(...(page.tools as Record<string, unknown>[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
