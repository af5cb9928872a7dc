import { z } from 'zod';
import { DEFAULT_TOOL_POOL, TOOL_POOL_NAME, TOOL_POOL_NAME_RULE } from '@arvis/contracts';
import { commitment } from '@arvis/crypto';
import { crossesTrustBoundary, type ToolSpec } from './tool-spec';

/**
 * A schema's JSON Schema, made by the zod copy that built the schema when it can (zod 4 schemas
 * carry `toJSONSchema`): a package's own copy of zod is never checked with `instanceof` here.
 */
export function jsonSchemaOf(schema: unknown): unknown {
  const own = (schema as { toJSONSchema?: unknown }).toJSONSchema;
  return typeof own === 'function' ? own.call(schema) : z.toJSONSchema(schema as z.ZodType);
}

/**
 * A frozen set of tool specs with a fingerprint over every flag and the JSON Schema of every
 * schema: an intent minted against one surface is refused by a dispatcher that knows another.
 *
 * Each tool runs in a dispatcher pool (ADR 0080; `pools`: tool name -> pool, the shared pool for a
 * tool it does not name). Each pool has its own catalog and fingerprint, over that pool's specs and
 * its name (the shared pool's manifest names none, so a deployment with one pool keeps the
 * fingerprint it had): upgrading a package in one pool changes that pool's fingerprint only, and
 * moving a tool to another pool is a change of surface. An intent is stamped with, and checked
 * against, its tool's pool's fingerprint (`fingerprintOf`).
 */
export class ToolCatalog {
  /**
   * One pool: that pool's fingerprint, the one its intents carry. Several: a commitment over the
   * pools' fingerprints, which names the whole surface in logs and is stamped on no intent.
   */
  readonly fingerprint: string;
  private readonly byName: ReadonlyMap<string, ToolSpec>;
  private readonly poolByName: ReadonlyMap<string, string>;
  private readonly byPool: ReadonlyMap<string, ToolCatalog>;
  /** Tool name -> its pool's fingerprint: the one lookup the intent sink makes per intent. */
  private readonly fingerprintByName: ReadonlyMap<string, string>;

  constructor(specs: readonly ToolSpec[], pools: ReadonlyMap<string, string> = new Map()) {
    const map = new Map<string, ToolSpec>();
    for (const s of specs) {
      if (map.has(s.name)) throw new Error(`tool ${s.name} declared twice`);
      map.set(s.name, s);
    }
    this.byName = map;
    const poolByName = new Map([...map.keys()].map((n) => [n, pools.get(n) ?? DEFAULT_TOOL_POOL] as const));
    for (const [tool, pool] of poolByName) if (!TOOL_POOL_NAME.test(pool)) throw new Error(`tool ${tool}: ${JSON.stringify(pool)} is not a pool name (${TOOL_POOL_NAME_RULE})`);
    this.poolByName = poolByName;
    const names = [...new Set(poolByName.values())].sort();
    const byPool = new Map<string, ToolCatalog>();
    if (names.length <= 1) {
      // One pool (or no tool at all: the shared pool, empty): this catalog is that pool's.
      byPool.set(names[0] ?? DEFAULT_TOOL_POOL, this);
    } else {
      for (const pool of names) byPool.set(pool, new ToolCatalog(specs.filter((s) => poolByName.get(s.name) === pool), poolByName));
    }
    this.byPool = byPool;
    this.fingerprint = commitment(this.manifest());
    this.fingerprintByName = new Map([...poolByName].map(([n, pool]) => [n, byPool.get(pool)!.fingerprint] as const));
    Object.freeze(this);
  }

  get(name: string): ToolSpec | undefined {
    return this.byName.get(name);
  }

  specs(): ToolSpec[] {
    return this.names().map((n) => this.byName.get(n)!);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** The pool a tool runs in; undefined for a tool this catalog does not have. */
  poolOf(name: string): string | undefined {
    return this.poolByName.get(name);
  }

  /** The fingerprint of the tool's pool's catalog: what its intents carry and are checked against. */
  fingerprintOf(name: string): string | undefined {
    return this.fingerprintByName.get(name);
  }

  /** The pools of these tools, in name order. */
  pools(): string[] {
    return [...this.byPool.keys()].sort();
  }

  /** One pool's catalog: its tools only, with its own fingerprint. */
  ofPool(pool: string): ToolCatalog | undefined {
    return this.byPool.get(pool);
  }

  manifest(): Record<string, unknown> {
    if (this.byPool.size > 1) {
      return { manifestVersion: 1, pools: Object.fromEntries(this.pools().map((p) => [p, this.byPool.get(p)!.fingerprint])) };
    }
    const pool = this.pools()[0];
    return {
      manifestVersion: 1,
      // Only for a pool other than the shared one, so a deployment with one pool keeps its fingerprint (ADR 0080).
      ...(pool !== DEFAULT_TOOL_POOL ? { pool } : {}),
      tools: this.names().map((name) => {
        const s = this.byName.get(name)!;
        return {
          name: s.name,
          description: s.description,
          inputSchema: jsonSchemaOf(s.input),
          outputSchema: jsonSchemaOf(s.output),
          idempotent: s.idempotent,
          retryable: s.retryable,
          sideEffectful: s.sideEffectful,
          timeoutMs: s.timeoutMs,
          maxRisk: s.maxRisk,
          requiresConfirmation: s.requiresConfirmation,
          auditRequired: s.auditRequired,
          reversible: s.reversible,
          provider: s.manifest.provider,
          dataEgress: s.manifest.dataEgress,
          dataClass: s.manifest.dataClass,
          requiredConsent: s.manifest.requiredConsent,
          crossesTrustBoundary: crossesTrustBoundary(s),
          // Only when declared, so the fingerprint of a tool without them is unchanged (ADR 0076, 0077).
          ...(s.maxRunMs !== undefined ? { maxRunMs: s.maxRunMs } : {}),
          ...(s.retry ? { retry: s.retry } : {}),
        };
      }),
    };
  }
}
