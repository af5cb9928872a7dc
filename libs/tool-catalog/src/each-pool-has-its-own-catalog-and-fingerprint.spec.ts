import { z } from 'zod';
import { commitment } from '@arvis/crypto';
import { defineTool, type ToolPackage } from './tool-spec';
import { ToolCatalog } from './tool-catalog';
import { assembleTools, describeTools } from './tool-packages';

// ADR 0080: each pool's catalog and fingerprint are over its own specs (and its name), so one
// pool's upgrade leaves every other pool's in-flight intents valid.
const tool = (name: string, timeoutMs = 1000) =>
  defineTool({
    name,
    description: name,
    input: z.strictObject({ text: z.string() }),
    output: z.strictObject({ id: z.string() }),
    idempotent: true,
    retryable: false,
    sideEffectful: true,
    timeoutMs,
    maxRisk: 0.5,
    requiresConfirmation: false,
    auditRequired: false,
    reversible: true,
    manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
    execute: async () => ({ id: '1' }),
  });
const pkg = (name: string, pool: string | undefined, ...tools: ReturnType<typeof tool>[]): ToolPackage => ({ name, version: '1.0.0', tools, ...(pool ? { pool } : {}) });

describe('a catalog per pool', () => {
  const shared = pkg('notes', undefined, tool('notes.append'));
  const ledger = pkg('ledger', 'ledger', tool('ledger.transfer'));
  const search = pkg('search', 'search', tool('search.query'));

  it('gives each tool its pool, and each pool a catalog of its own tools only', () => {
    const set = assembleTools([shared, ledger, search]);
    expect(set.catalog.pools()).toEqual(['ledger', 'search', 'shared']);
    expect(['notes.append', 'ledger.transfer', 'search.query', 'no.such'].map((t) => set.poolOf(t))).toEqual(['shared', 'ledger', 'search', undefined]);
    expect(set.catalog.ofPool('ledger')!.names()).toEqual(['ledger.transfer']);
    expect(set.catalog.fingerprintOf('ledger.transfer')).toBe(set.catalog.ofPool('ledger')!.fingerprint);
    expect(set.catalog.fingerprintOf('no.such')).toBeUndefined();
    // The whole catalog still finds every spec: the authorizer judges every pool's tools.
    expect(set.catalog.get('search.query')?.name).toBe('search.query');
  });

  it('changes only the upgraded pool fingerprint when one package of one pool changes', () => {
    const before = assembleTools([shared, ledger, search]).catalog;
    const after = assembleTools([shared, pkg('ledger', 'ledger', tool('ledger.transfer', 5000)), search]).catalog;
    expect(after.ofPool('ledger')!.fingerprint).not.toBe(before.ofPool('ledger')!.fingerprint);
    expect(after.ofPool('search')!.fingerprint).toBe(before.ofPool('search')!.fingerprint);
    expect(after.ofPool('shared')!.fingerprint).toBe(before.ofPool('shared')!.fingerprint);
    // A pool added beside them changes none of theirs.
    const grown = assembleTools([shared, ledger, search, pkg('mail', 'mail', tool('mail.send'))]).catalog;
    for (const p of ['ledger', 'search', 'shared']) expect(grown.ofPool(p)!.fingerprint).toBe(before.ofPool(p)!.fingerprint);
  });

  it('names the pool in the fingerprint: the same tools in another pool are another surface', () => {
    const inLedger = assembleTools([pkg('t', 'ledger', tool('x.do'))]).catalog;
    const inBilling = assembleTools([pkg('t', 'billing', tool('x.do'))]).catalog;
    const inShared = assembleTools([pkg('t', undefined, tool('x.do'))]).catalog;
    expect(new Set([inLedger.fingerprint, inBilling.fingerprint, inShared.fingerprint]).size).toBe(3);
    expect(inLedger.manifest()).toMatchObject({ manifestVersion: 1, pool: 'ledger' });
  });

  it('keeps the fingerprint of a deployment with the shared pool only, byte for byte', () => {
    const tools = [tool('a.one'), tool('b.two')];
    const set = assembleTools([pkg('p', undefined, ...tools)]);
    // The manifest as it was before pools: no pool field at all.
    expect(set.catalog.manifest()).not.toHaveProperty('pool');
    expect(Object.keys(set.catalog.manifest())).toEqual(['manifestVersion', 'tools']);
    expect(set.catalog.fingerprint).toBe(commitment(set.catalog.manifest()));
    expect(set.catalog.pools()).toEqual(['shared']);
    expect(set.catalog.ofPool('shared')).toBe(set.catalog);
    expect(set.catalog.fingerprintOf('a.one')).toBe(set.catalog.fingerprint);
    // Naming the shared pool is the same as naming none.
    expect(assembleTools([pkg('p', 'shared', ...tools)]).catalog.fingerprint).toBe(set.catalog.fingerprint);
    expect(new ToolCatalog(tools).fingerprint).toBe(set.catalog.fingerprint);
    expect(describeTools(set)).toBe(`tool catalog ${set.catalog.fingerprint} (2 tools) from p@1.0.0`);
  });

  it('logs each pool with its fingerprint, tools and packages', () => {
    const set = assembleTools([shared, ledger]);
    expect(describeTools(set)).toBe(
      `tool catalog of 2 pools: pool ledger ${set.catalog.ofPool('ledger')!.fingerprint} (1 tools: ledger.transfer) from ledger@1.0.0; ` +
        `pool shared ${set.catalog.ofPool('shared')!.fingerprint} (1 tools: notes.append) from notes@1.0.0`,
    );
  });

  it('refuses a tool placed in something that is not a pool name', () => {
    expect(() => new ToolCatalog([tool('x.do')], new Map([['x.do', 'Not.A.Pool']]))).toThrow('is not a pool name');
  });
});
