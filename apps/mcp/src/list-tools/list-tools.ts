import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { crossesTrustBoundary, jsonSchemaOf, type ToolCatalog } from '@arvis/tool-catalog';

/** The tool an agent reads a pending decision's result with (ADR 0074). */
export const READ_RESULT_TOOL = 'arvis.result';

/** `_meta` keys a caller may set on a tools/call; anything else there is ignored. */
export const META = { runId: 'arvis/runId', causalId: 'arvis/causalId', riskScore: 'arvis/riskScore' } as const;

const readResultTool: Tool = {
  name: READ_RESULT_TOOL,
  title: 'Read a decision\'s result',
  description:
    'The final result of a decision this caller sent (one a tools/call answered pending, e.g. awaiting a human confirmation). ' +
    'Waits up to waitS seconds for it; answers pending while it has none, not_found for an id that is not the caller\'s.',
  inputSchema: {
    type: 'object',
    properties: {
      decisionId: { type: 'string', minLength: 1, maxLength: 200 },
      waitS: { type: 'integer', minimum: 0, maximum: 300 },
    },
    required: ['decisionId'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

/**
 * The catalog as MCP tools: each input's JSON Schema as the catalog fingerprints it (the same
 * function, so what an agent is shown is what the authorizer judges), the flags as MCP's hints,
 * and the governance flags under `_meta` for an agent that wants to know before it calls.
 */
export function listTools(catalog: ToolCatalog): Tool[] {
  const tools = catalog.specs().map(
    (s): Tool => ({
      name: s.name,
      description: s.description,
      inputSchema: jsonSchemaOf(s.input) as Tool['inputSchema'],
      annotations: {
        readOnlyHint: !s.sideEffectful,
        destructiveHint: s.sideEffectful && !s.reversible,
        idempotentHint: s.idempotent,
        openWorldHint: crossesTrustBoundary(s),
      },
      _meta: { 'arvis/requiresConfirmation': s.requiresConfirmation, 'arvis/maxRisk': s.maxRisk, 'arvis/outputSchema': jsonSchemaOf(s.output) },
    }),
  );
  return [...tools, readResultTool];
}
