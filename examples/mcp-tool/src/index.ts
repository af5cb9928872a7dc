import { join } from 'node:path';
import { defineToolPackage } from '@arvis/tool-sdk';
import { remoteTool } from './remote-tool.js';
import { readSnapshot } from './snapshot.js';

export { IDEMPOTENCY_META_KEY } from './remote-tool.js';
export { Snapshot } from './snapshot.js';

/**
 * The snapshot in this package (written by arvis-mcp-snapshot); MCP_TOOL_SNAPSHOT names another
 * file. Read at load: the catalog both services agree on comes from it, never from the server.
 */
const snapshotPath = process.env.MCP_TOOL_SNAPSHOT || join(import.meta.dirname, '..', 'mcp-snapshot.json');
const snapshot = readSnapshot(snapshotPath);

/** What ARVIS_TOOL_PACKAGES loads: name this package's folder (or its installed name) there. */
export const toolPackage = defineToolPackage({
  name: 'arvis-mcp-tool',
  version: '0.1.0',
  // The look-up tool serves reconciliation only: no decision calls it.
  tools: snapshot.tools.filter((t) => t.name !== snapshot.lookupTool).map((t) => remoteTool(snapshot, t)),
});
