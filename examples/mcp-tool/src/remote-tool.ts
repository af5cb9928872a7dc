import { defineTool, EffectNotStartedError, type ToolDefinition } from '@arvis/tool-sdk';
import { z } from 'zod';
import { connect, listAllTools, serverSettings } from './connection.js';
import { canonical, declared, type DeclaredTool, type Snapshot } from './snapshot.js';

/** The call's metadata key carrying the idempotency key (MCP `_meta`), for a server that honours it. */
export const IDEMPOTENCY_META_KEY = 'arvis/idempotency-key';

const CallOutput = z.object({
  content: z.array(z.record(z.string(), z.unknown())),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
});

/**
 * One remote tool as a governed tool. Its manifest says it crosses a trust boundary (the provider,
 * data egress, the snapshot's consent key), so the authorizer's consent and egress gates apply
 * before anything is sent. Before each call the live declaration is compared with the pinned one:
 * a changed, or vanished, tool is refused frozen_surface_diverged, and nothing is sent.
 */
export function remoteTool(snapshot: Snapshot, pinned: DeclaredTool): ToolDefinition<z.ZodType, typeof CallOutput> {
  return defineTool({
    name: `${snapshot.toolPrefix}.${pinned.name}`,
    description: pinned.description ?? pinned.title ?? pinned.name,
    input: z.fromJSONSchema(pinned.inputSchema as Parameters<typeof z.fromJSONSchema>[0]),
    output: CallOutput,
    // Whether the server honours the key in _meta is its own affair: the dispatcher keeps one effect per key.
    idempotent: false,
    retryable: false,
    sideEffectful: pinned.annotations?.readOnlyHint !== true,
    timeoutMs: snapshot.timeoutMs,
    maxRisk: snapshot.maxRisk,
    requiresConfirmation: false,
    auditRequired: true,
    reversible: false,
    manifest: { provider: snapshot.provider, dataEgress: true, dataClass: snapshot.dataClass, requiredConsent: snapshot.consentKey },
    async execute({ input, idempotencyKey, signal }) {
      const client = await connect(serverSettings(), signal);
      try {
        const live = (await listAllTools(client, signal)).find((t) => t.name === pinned.name);
        if (!live) throw new EffectNotStartedError('frozen_surface_diverged', `${snapshot.server.name} no longer lists ${pinned.name}: nothing was sent`);
        if (canonical(declared(live)) !== canonical(pinned)) {
          throw new EffectNotStartedError('frozen_surface_diverged', `${snapshot.server.name} declares ${pinned.name} differently from the snapshot: nothing was sent`);
        }
        const result = await client.callTool(
          { name: pinned.name, arguments: input as Record<string, unknown>, _meta: { [IDEMPOTENCY_META_KEY]: idempotencyKey } },
          undefined,
          { signal, timeout: snapshot.timeoutMs },
        );
        if (result.isError) throw new Error(`${snapshot.server.name} ${pinned.name} answered an error: ${JSON.stringify(result.content).slice(0, 400)}`);
        return { content: result.content as Record<string, unknown>[], ...(result.structuredContent ? { structuredContent: result.structuredContent as Record<string, unknown> } : {}) };
      } finally {
        await client.close();
      }
    },
    // The server offers no look-up of a call by its key: a lost call stays unknown, never rerun.
    async reconcile() {
      return { found: 'cannot_tell' };
    },
  });
}
