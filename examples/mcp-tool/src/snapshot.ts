import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** One remote tool as its server declared it: the surface a decision is authorized against. */
const DeclaredTool = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type DeclaredTool = z.infer<typeof DeclaredTool>;

/**
 * The snapshot file: the remote tool list, pinned, and the governance the operator gave it when
 * writing it. The authorizer judges from this file alone; only the dispatcher contacts the server.
 */
export const Snapshot = z.object({
  snapshotFormatVersion: z.literal(1),
  server: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  /** Who the effect crosses the trust boundary to (the egress gate's provider). */
  provider: z.string().min(1),
  /** The consent a principal must have granted for any of these tools. */
  consentKey: z.string().min(1),
  dataClass: z.string().min(1),
  /** Prefix of the tool names in the catalog: `<toolPrefix>.<remote name>`. */
  toolPrefix: z.string().min(1),
  timeoutMs: z.number().int().positive(),
  maxRisk: z.number().min(0).max(1),
  tools: z.array(DeclaredTool).min(1),
  /**
   * A remote tool that looks a call up by its idempotency key (ADR 0078), or absent: then a call
   * lost with its dispatcher cannot be told. It is pinned with the others and not offered itself.
   */
  lookupTool: z.string().min(1).optional(),
}).refine((s) => s.lookupTool === undefined || s.tools.some((t) => t.name === s.lookupTool), 'lookupTool must be one of the pinned tools');
export type Snapshot = z.infer<typeof Snapshot>;

/** The fields of a live declaration that the snapshot pins, in one canonical form. */
export function declared(tool: Record<string, unknown>): DeclaredTool {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool as DeclaredTool;
  return DeclaredTool.parse({ name, title, description, inputSchema, outputSchema, annotations });
}

/** JSON with object keys sorted: two declarations are the same surface when these are equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function readSnapshot(path: string): Snapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`arvis-mcp-tool: the snapshot ${path} cannot be read (write it with arvis-mcp-snapshot): ${(e as Error).message}`);
  }
  const r = Snapshot.safeParse(raw);
  if (!r.success) throw new Error(`arvis-mcp-tool: the snapshot ${path} is not valid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
