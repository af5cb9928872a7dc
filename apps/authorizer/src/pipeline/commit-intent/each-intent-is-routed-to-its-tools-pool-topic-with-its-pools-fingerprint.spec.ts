import { z } from 'zod';
import { topicsFor } from '@arvis/config';
import { assembleTools, defineTool, type ToolPackage } from '@arvis/tool-catalog';
import { intentRoutes } from './intent-routes';

// ADR 0080: the intent sink's one lookup per intent gives its tool's pool, that pool's topic (the
// shared pool's is the intents topic itself) and that pool's fingerprint.
const tool = (name: string) =>
  defineTool({
    name,
    description: name,
    input: z.strictObject({ text: z.string() }),
    output: z.strictObject({ id: z.string() }),
    idempotent: true,
    retryable: false,
    sideEffectful: true,
    timeoutMs: 1000,
    maxRisk: 0.5,
    requiresConfirmation: false,
    auditRequired: false,
    reversible: true,
    manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
    execute: async () => ({ id: '1' }),
  });
const pkg = (name: string, pool: string | undefined, ...tools: string[]): ToolPackage => ({ name, version: '1', tools: tools.map(tool), ...(pool ? { pool } : {}) });

describe('intent routes', () => {
  const topics = topicsFor('p.');

  it("sends each tool's intents to its pool's topic, stamped with its pool's fingerprint", () => {
    const { catalog } = assembleTools([pkg('notes', undefined, 'notes.append', 'notes.read'), pkg('ledger', 'ledger', 'ledger.transfer')]);
    const routes = intentRoutes(catalog, topics);
    expect(Object.fromEntries([...routes].map(([t, r]) => [t, [r.pool, r.topic]]))).toEqual({
      'ledger.transfer': ['ledger', 'p.arvis.intents.pool.ledger'],
      'notes.append': ['shared', 'p.arvis.intents'],
      'notes.read': ['shared', 'p.arvis.intents'],
    });
    expect(routes.get('ledger.transfer')!.fingerprint).toBe(catalog.ofPool('ledger')!.fingerprint);
    expect(routes.get('notes.append')!.fingerprint).toBe(catalog.ofPool('shared')!.fingerprint);
    expect(routes.get('notes.append')!.fingerprint).not.toBe(routes.get('ledger.transfer')!.fingerprint);
  });

  it('keeps the intents topic and the one catalog fingerprint when every tool is in the shared pool', () => {
    const { catalog } = assembleTools([pkg('notes', undefined, 'notes.append'), pkg('mail', 'shared', 'mail.send')]);
    for (const r of intentRoutes(catalog, topics).values()) expect(r).toEqual({ pool: 'shared', topic: 'p.arvis.intents', fingerprint: catalog.fingerprint });
  });
});
