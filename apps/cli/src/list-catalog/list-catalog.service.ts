import { crossesTrustBoundary, jsonSchemaOf, type ToolSet } from '@arvis/tool-catalog';
import { toJson } from '../output';

/** One tool as an operator reviews it before deploying a package. */
export interface CatalogTool {
  name: string;
  package: string;
  /** The dispatcher pool that runs it (ADR 0080). */
  pool: string;
  description: string;
  /** The manifest labels the policy gates read. */
  labels: { provider: string | null; crossesTrustBoundary: boolean; dataEgress: boolean; dataClass: string; requiredConsent: string | null };
  maxRisk: number;
  requiresConfirmation: boolean;
  idempotent: boolean;
  retryable: boolean;
  sideEffectful: boolean;
  reversible: boolean;
  auditRequired: boolean;
  timeoutMs: number;
  reconciles: boolean;
  inputSchema: unknown;
  outputSchema: unknown;
}

export interface CatalogView {
  /** One pool: the fingerprint its intents carry; several: the whole surface's, carried by none. */
  fingerprint: string;
  /** Each pool's fingerprint (the one its intents carry and its dispatchers check) and tools. */
  pools: { name: string; fingerprint: string; tools: string[] }[];
  packages: { name: string; version: string; tools: string[] }[];
  tools: CatalogTool[];
}

/** The catalog the services build from the same ARVIS_TOOL_PACKAGES, with its fingerprint. */
export function describeCatalog(set: ToolSet): CatalogView {
  const owner = new Map(set.packages.flatMap((p) => p.tools.map((t) => [t.name, p.name] as const)));
  return {
    fingerprint: set.catalog.fingerprint,
    pools: set.catalog.pools().map((name) => {
      const c = set.catalog.ofPool(name)!;
      return { name, fingerprint: c.fingerprint, tools: c.names() };
    }),
    packages: set.packages.map((p) => ({ name: p.name, version: p.version, tools: p.tools.map((t) => t.name).sort() })),
    tools: set.catalog.specs().map((s) => ({
      name: s.name,
      package: owner.get(s.name) ?? '',
      pool: set.poolOf(s.name)!,
      description: s.description,
      labels: { ...s.manifest, crossesTrustBoundary: crossesTrustBoundary(s) },
      maxRisk: s.maxRisk,
      requiresConfirmation: s.requiresConfirmation,
      idempotent: s.idempotent,
      retryable: s.retryable,
      sideEffectful: s.sideEffectful,
      reversible: s.reversible,
      auditRequired: s.auditRequired,
      timeoutMs: s.timeoutMs,
      reconciles: typeof set.definitions.get(s.name)?.reconcile === 'function',
      inputSchema: jsonSchemaOf(s.input),
      outputSchema: jsonSchemaOf(s.output),
    })),
  };
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

export function renderCatalog(view: CatalogView): string[] {
  const lines = [
    `catalog ${view.fingerprint}`,
    `packages: ${view.packages.map((p) => `${p.name}@${p.version}`).join(', ')}`,
    ...view.pools.map((p) => `pool ${p.name} ${p.fingerprint}: ${p.tools.join(', ')}`),
  ];
  for (const t of view.tools) {
    const l = t.labels;
    lines.push(
      '',
      `${t.name}  (${t.package}, pool ${t.pool})  ${t.description}`,
      `  risk ceiling ${t.maxRisk}  confirmation ${t.requiresConfirmation ? 'required' : 'not required'}  idempotent ${yesNo(t.idempotent)}  retryable ${yesNo(t.retryable)}  reversible ${yesNo(t.reversible)}  audit ${yesNo(t.auditRequired)}  timeout ${t.timeoutMs} ms  reconciles ${yesNo(t.reconciles)}`,
      `  provider ${l.provider ?? 'none (sovereign)'}  egress ${yesNo(l.dataEgress)}  data class ${l.dataClass}  consent ${l.requiredConsent ?? 'none'}`,
      `  input  ${toJson(t.inputSchema)}`,
      `  output ${toJson(t.outputSchema)}`,
    );
  }
  return lines;
}
