import { z } from 'zod';
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
 */
export class ToolCatalog {
  readonly fingerprint: string;
  private readonly byName: ReadonlyMap<string, ToolSpec>;

  constructor(specs: readonly ToolSpec[]) {
    const map = new Map<string, ToolSpec>();
    for (const s of specs) {
      if (map.has(s.name)) throw new Error(`tool ${s.name} declared twice`);
      map.set(s.name, s);
    }
    this.byName = map;
    this.fingerprint = commitment(this.manifest());
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

  manifest(): Record<string, unknown> {
    return {
      manifestVersion: 1,
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
