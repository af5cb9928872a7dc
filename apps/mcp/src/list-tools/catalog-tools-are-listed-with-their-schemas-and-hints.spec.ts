import { z } from 'zod';
import { defineTool, jsonSchemaOf, ToolCatalog } from '@arvis/tool-catalog';
import { listTools, READ_RESULT_TOOL } from './list-tools';

const tool = (name: string, over: Partial<Parameters<typeof defineTool>[0]> = {}) =>
  defineTool({
    name,
    description: `${name} does it`,
    input: z.strictObject({ text: z.string().min(1) }),
    output: z.strictObject({ id: z.string() }),
    idempotent: false,
    retryable: false,
    sideEffectful: true,
    timeoutMs: 1000,
    maxRisk: 0.5,
    requiresConfirmation: false,
    auditRequired: true,
    reversible: true,
    manifest: { provider: null, dataEgress: false, dataClass: 'internal', requiredConsent: null },
    execute: async () => ({ id: '1' }),
    ...over,
  });

describe('the catalog as MCP tools', () => {
  const catalog = new ToolCatalog([
    tool('notes.append'),
    tool('ledger.transfer', { requiresConfirmation: true, reversible: false, idempotent: true, maxRisk: 0.8 }),
    tool('mail.send', { manifest: { provider: 'smtp', dataEgress: true, dataClass: 'personal', requiredConsent: null } }),
  ]);
  const tools = listTools(catalog);
  const byName = (n: string) => tools.find((t) => t.name === n)!;

  it('lists each tool with the JSON Schema the catalog fingerprints, and the result reader last', () => {
    expect(tools.map((t) => t.name)).toEqual(['ledger.transfer', 'mail.send', 'notes.append', READ_RESULT_TOOL]);
    for (const spec of catalog.specs()) expect(byName(spec.name).inputSchema).toEqual(jsonSchemaOf(spec.input));
    expect(byName('notes.append').inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    expect(byName(READ_RESULT_TOOL).inputSchema).toMatchObject({ type: 'object', required: ['decisionId'] });
  });

  it('turns the flags into MCP hints and names confirmation, risk and output under _meta', () => {
    expect(byName('ledger.transfer').annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(byName('ledger.transfer')._meta).toMatchObject({ 'arvis/requiresConfirmation': true, 'arvis/maxRisk': 0.8, 'arvis/outputSchema': { type: 'object' } });
    expect(byName('notes.append').annotations).toMatchObject({ destructiveHint: false, openWorldHint: false });
    expect(byName('mail.send').annotations).toMatchObject({ openWorldHint: true });
  });
});
