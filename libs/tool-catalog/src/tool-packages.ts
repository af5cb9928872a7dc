import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '@arvis/config';
import { DEFAULT_TOOL_POOL, TOOL_POOL_NAME, TOOL_POOL_NAME_RULE } from '@arvis/contracts';
import { ToolCatalog } from './tool-catalog';
import type { ToolDefinition, ToolPackage } from './tool-spec';

/** The tools one service runs or judges, from its packages, with their catalog. */
export interface ToolSet {
  readonly packages: readonly ToolPackage[];
  /** Every tool; `catalog.ofPool(p)` is one pool's, with its own fingerprint (ADR 0080). */
  readonly catalog: ToolCatalog;
  readonly definitions: ReadonlyMap<string, ToolDefinition>;
  /** The pool a tool runs in (its package's, default `shared`); undefined for a tool not here. */
  poolOf(tool: string): string | undefined;
}

/** ARVIS_TOOL_PACKAGES: comma-separated module specifiers or paths. */
export const toolPackagesEnv = z.preprocess(
  (v) => (v === undefined || v === '' ? [] : String(v).split(',').map((s) => s.trim()).filter(Boolean)),
  z.array(z.string()),
);

// Structural checks only: a package may bring its own copy of zod (and of the SDK).
const fn = (what: string) => z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', `${what} must be a function`);
const schema = z.custom((v) => typeof (v as { safeParse?: unknown } | null)?.safeParse === 'function', 'must be a zod schema');
const flag = z.boolean();
const ToolShape = z.object({
  // As the contract's Identifier: a decision names its tool with one.
  name: z.string().min(1).max(200).regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not contain control characters'),
  description: z.string(),
  input: schema,
  output: schema,
  idempotent: flag,
  retryable: flag,
  sideEffectful: flag,
  timeoutMs: z.number().int().positive(),
  maxRunMs: z.number().int().positive().optional(),
  retry: z
    .strictObject({
      maxAttempts: z.number().int().min(1).max(10).optional(),
      initialIntervalMs: z.number().int().min(0).max(86_400_000).optional(),
      backoffCoefficient: z.number().min(1).max(100).optional(),
      maxIntervalMs: z.number().int().min(0).max(86_400_000).optional(),
      nonRetryableErrorCodes: z.array(z.string().min(1).max(200)).optional(),
    })
    .optional(),
  maxRisk: z.number().min(0).max(1),
  requiresConfirmation: flag,
  auditRequired: flag,
  reversible: flag,
  manifest: z.object({
    provider: z.string().min(1).nullable(),
    dataEgress: flag,
    dataClass: z.string().min(1),
    requiredConsent: z.string().min(1).nullable(),
  }),
  display: z
    .record(
      z.string().min(1),
      z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('money'), currency: z.string().regex(/^[A-Z]{3}$/).optional(), currencyField: z.string().min(1).optional(), minorUnits: z.number().int().min(0).max(8).optional() })
          .refine((h) => (h.currency === undefined) !== (h.currencyField === undefined), 'a money hint names its currency or the field holding it, one of the two'),
        z.strictObject({ kind: z.literal('timestamp'), unit: z.enum(['rfc3339', 'ms', 's']).optional() }),
        z.strictObject({ kind: z.literal('enum'), labels: z.record(z.string(), z.string().min(1).max(200)) }),
      ]),
    )
    .optional(),
  execute: fn('execute'),
  reconcile: fn('reconcile').optional(),
}).refine((t) => t.maxRunMs === undefined || t.maxRunMs >= t.timeoutMs, { message: 'maxRunMs must be at least timeoutMs', path: ['maxRunMs'] });
const PackageShape = z.object({
  name: z.string().min(1).max(200),
  version: z.string().min(1).max(100),
  tools: z.array(ToolShape),
  migrationsDir: z
    .string()
    .refine(isAbsolute, 'must be an absolute path')
    .refine(existsSync, 'does not exist')
    .optional(),
  pool: z.string().regex(TOOL_POOL_NAME, TOOL_POOL_NAME_RULE).optional(),
});

/** The package a module exports: `toolPackage`, else its default export, else the module itself. */
function exportedPackage(mod: unknown): unknown {
  const m = mod as { toolPackage?: unknown; default?: unknown } | null;
  if (m?.toolPackage !== undefined) return m.toolPackage;
  if (m?.default !== undefined && typeof m.default === 'object') return m.default;
  return mod;
}

/** Problems with one exported value, each prefixed; empty when it is a valid ToolPackage. */
export function toolPackageProblems(value: unknown): string[] {
  const r = PackageShape.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => `${i.path.join('.') || 'export'}: ${i.message}`);
}

// Node 24 requires an ES module synchronously (require(esm)) unless its graph awaits at top level;
// the two ways an ES module package fails here get a message saying what to change (ADR 0079).
function loadProblem(e: Error & { code?: string }): string {
  const first = e.message.split('\n')[0];
  if (e.code === 'ERR_REQUIRE_ASYNC_MODULE') return `${first} (an ES module tool package must not use top-level await: the services load their packages synchronously at start-up)`;
  if (e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return `${first} (a tool package exports its entry under the "default" or "require" condition, not only "import")`;
  return first;
}

/**
 * Loads each named package with require (CommonJS and ES modules alike), resolved from `from` (the project root: where npm
 * scripts and the image run), and validates what it exports. Any problem is a ConfigError
 * naming the specifier, so a service stops at start-up (exit 78) rather than at the first call.
 */
export function loadToolPackages(specifiers: readonly string[], from: string = process.cwd()): ToolPackage[] {
  const problems: string[] = [];
  const loaded: ToolPackage[] = [];
  for (const spec of specifiers) {
    let mod: unknown;
    try {
      // A plain require, as `node -e "require('<spec>')"` would: CommonJS or ES module packages, their own node_modules.
      mod = require(require.resolve(spec, { paths: [from] }));
    } catch (e) {
      problems.push(`ARVIS_TOOL_PACKAGES: ${spec} cannot be loaded: ${loadProblem(e as Error & { code?: string })}`);
      continue;
    }
    const pkg = exportedPackage(mod);
    const issues = toolPackageProblems(pkg);
    if (issues.length > 0) problems.push(...issues.map((i) => `ARVIS_TOOL_PACKAGES: ${spec} exports no valid ToolPackage (${i})`));
    else loaded.push(pkg as ToolPackage);
  }
  const names = loaded.map((p) => p.name);
  for (const dup of new Set(names.filter((n, i) => names.indexOf(n) !== i))) problems.push(`ARVIS_TOOL_PACKAGES: package ${dup} named twice`);
  if (problems.length > 0) throw new ConfigError(problems);
  return loaded;
}

/**
 * The tools of these packages as one catalog. No tools at all is refused: a service with an
 * empty catalog would refuse every decision, which is a deployment mistake, not a state to run in.
 */
export function assembleTools(packages: readonly ToolPackage[]): ToolSet {
  const problems: string[] = [];
  const definitions = new Map<string, ToolDefinition>();
  const owner = new Map<string, string>();
  const pools = new Map<string, string>();
  for (const pkg of packages) {
    for (const issue of toolPackageProblems(pkg)) problems.push(`tool package ${pkg.name ?? '(unnamed)'}: ${issue}`);
    for (const tool of pkg.tools ?? []) {
      const first = owner.get(tool.name);
      if (first !== undefined) problems.push(`tool ${tool.name} is declared by ${first} and by ${pkg.name}; tool names must be unique`);
      else owner.set(tool.name, pkg.name);
      definitions.set(tool.name, tool);
      pools.set(tool.name, pkg.pool ?? DEFAULT_TOOL_POOL);
    }
  }
  if (packages.length > 0 && definitions.size === 0 && problems.length === 0) problems.push('the tool packages declare no tools');
  if (packages.length === 0) problems.push('ARVIS_TOOL_PACKAGES: no tool packages configured; name the packages whose tools this service serves (the demo: ./dist/tools/demo)');
  if (problems.length > 0) throw new ConfigError(problems);
  let catalog: ToolCatalog;
  try {
    catalog = new ToolCatalog([...definitions.values()], pools);
  } catch (e) {
    throw new ConfigError([`the tools cannot form a catalog: ${(e as Error).message}`]);
  }
  return Object.freeze({ packages: Object.freeze([...packages]), catalog, definitions, poolOf: (tool: string) => catalog.poolOf(tool) });
}

/**
 * One line for the start-up log: the fingerprint intents are minted and checked against, per pool
 * (ADR 0080). One shared pool reads as it always did; otherwise each pool's fingerprint, tools and
 * packages.
 */
export function describeTools(set: Pick<ToolSet, 'packages' | 'catalog'>): string {
  const label = (pkgs: readonly ToolPackage[]) => pkgs.map((p) => `${p.name}@${p.version}`).join(', ');
  const pools = set.catalog.pools();
  if (pools.length === 1 && pools[0] === DEFAULT_TOOL_POOL) {
    return `tool catalog ${set.catalog.fingerprint} (${set.catalog.names().length} tools) from ${label(set.packages)}`;
  }
  const each = pools.map((pool) => {
    const c = set.catalog.ofPool(pool)!;
    return `pool ${pool} ${c.fingerprint} (${c.names().length} tools: ${c.names().join(', ')}) from ${label(set.packages.filter((p) => (p.pool ?? DEFAULT_TOOL_POOL) === pool))}`;
  });
  return `tool catalog of ${pools.length} pool${pools.length === 1 ? '' : 's'}: ${each.join('; ')}`;
}
