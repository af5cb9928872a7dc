import { assembleTools } from '@arvis/tool-catalog';
import { toolPackage } from '../../../../tools/demo/src';
import { describeCatalog, renderCatalog } from './list-catalog.service';

describe('cli catalog', () => {
  const view = describeCatalog(assembleTools([toolPackage]));

  it('lists every tool with its labels, risk ceiling, confirmation need, idempotency and schemas', () => {
    expect(view.packages).toEqual([{ name: '@arvis/tool-demo', version: '0.1.0', tools: ['flaky.record', 'ledger.transfer', 'mail.send', 'notes.append'] }]);
    const ledger = view.tools.find((t) => t.name === 'ledger.transfer')!;
    expect(ledger).toMatchObject({
      package: '@arvis/tool-demo',
      labels: { provider: null, crossesTrustBoundary: false, dataEgress: false, dataClass: 'financial', requiredConsent: null },
      maxRisk: 0.8,
      requiresConfirmation: true,
      idempotent: true,
      reconciles: true,
    });
    expect(ledger.inputSchema).toMatchObject({ type: 'object', required: ['from', 'to', 'amountMinor', 'currency', 'reference'], additionalProperties: false });
    expect(ledger.outputSchema).toMatchObject({ properties: { transferId: { type: 'string' }, deduplicated: { type: 'boolean' } } });
    expect(view.tools.find((t) => t.name === 'mail.send')!.labels).toEqual({
      provider: 'smtp-relay',
      crossesTrustBoundary: true,
      dataEgress: true,
      dataClass: 'personal',
      requiredConsent: 'email',
    });
  });

  it('shows each pool with its own fingerprint and each tool with its pool', () => {
    const ledger = { ...toolPackage, name: 'ledger-tools', pool: 'ledger', tools: toolPackage.tools.filter((t) => t.name === 'ledger.transfer') };
    const rest = { ...toolPackage, tools: toolPackage.tools.filter((t) => t.name !== 'ledger.transfer') };
    const pooled = describeCatalog(assembleTools([rest, ledger]));
    expect(pooled.pools.map((p) => [p.name, p.tools])).toEqual([['ledger', ['ledger.transfer']], ['shared', ['flaky.record', 'mail.send', 'notes.append']]]);
    expect(pooled.tools.find((t) => t.name === 'ledger.transfer')!.pool).toBe('ledger');
    expect(renderCatalog(pooled)).toContain(`pool ledger ${pooled.pools[0].fingerprint}: ledger.transfer`);
  });

  it('gives the fingerprint the services log, and prints one block per tool', () => {
    // The compiled-in demo catalog had this one: the package changed no byte of the surface.
    expect(view.fingerprint).toBe('11fff03c9df86ad6741364719732e346a809c19487653639e77557471a44ba5c');
    const text = renderCatalog(view);
    expect(text[0]).toBe(`catalog ${view.fingerprint}`);
    // One shared pool: its fingerprint is the catalog's, as before pools (ADR 0080).
    expect(view.pools).toEqual([{ name: 'shared', fingerprint: view.fingerprint, tools: ['flaky.record', 'ledger.transfer', 'mail.send', 'notes.append'] }]);
    expect(text[2]).toBe(`pool shared ${view.fingerprint}: flaky.record, ledger.transfer, mail.send, notes.append`);
    expect(text).toContain('ledger.transfer  (@arvis/tool-demo, pool shared)  Moves money between two accounts of the tenant');
    expect(text.find((l) => l.includes('risk ceiling 0.8'))).toContain('confirmation required  idempotent yes');
    expect(text.find((l) => l.includes('smtp-relay'))).toBe('  provider smtp-relay  egress yes  data class personal  consent email');
  });
});
