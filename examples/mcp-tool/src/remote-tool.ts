import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { defineTool, EffectNotStartedError, type Reconciliation, type ToolDefinition } from '@arvis/tool-sdk';
import { z } from 'zod';
import { connect, listAllTools, serverSettings } from './connection.js';
import { canonical, declared, type DeclaredTool, type Snapshot } from './snapshot.js';

/** The call's metadata key carrying the idempotency key (MCP `_meta`), for a server that honours it. */
export const IDEMPOTENCY_META_KEY = 'arvis/idempotency-key';

const CallOutput = z.object({
  content: z.array(z.record(z.string(), z.unknown())),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
});

/** How the live declaration of a pinned tool differs from the pinned one, or null when it does not. */
async function divergence(client: Client, pinned: DeclaredTool, signal?: AbortSignal): Promise<string | null> {
  const live = (await listAllTools(client, signal)).find((t) => t.name === pinned.name);
  if (!live) return `no longer lists ${pinned.name}`;
  return canonical(declared(live)) === canonical(pinned) ? null : `declares ${pinned.name} differently from the snapshot`;
}

// What the look-up tool answers in its structured content: the call's result, or that it never arrived.
const LookupAnswer = z.discriminatedUnion('status', [
  z.object({ status: z.literal('completed'), result: CallOutput }),
  z.object({ status: z.literal('none') }),
]);

/**
 * Asks the server's look-up tool about the call with this key. Only a pinned, unchanged look-up
 * tool answering in the agreed shape is believed; anything else cannot tell. `none` is safe to
 * take: the dispatcher refuses it while the body may still run (ADR 0056).
 */
async function lookUp(snapshot: Snapshot, name: string, idempotencyKey: string): Promise<Reconciliation<z.input<typeof CallOutput>>> {
  const pinned = snapshot.tools.find((t) => t.name === name)!;
  const client = await connect(serverSettings());
  try {
    if (await divergence(client, pinned)) return { found: 'cannot_tell' };
    const result = await client.callTool({ name, arguments: { idempotencyKey } }, undefined, { timeout: snapshot.timeoutMs });
    const answer = LookupAnswer.safeParse(result.isError ? undefined : result.structuredContent);
    if (!answer.success) return { found: 'cannot_tell' };
    return answer.data.status === 'completed' ? { found: 'completed', output: answer.data.result } : { found: 'none' };
  } finally {
    await client.close();
  }
}

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
        const diverged = await divergence(client, pinned, signal);
        if (diverged) throw new EffectNotStartedError('frozen_surface_diverged', `${snapshot.server.name} ${diverged}: nothing was sent`);
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
    // Without a look-up on the server a lost call stays unknown, never rerun.
    async reconcile({ idempotencyKey }) {
      return snapshot.lookupTool ? lookUp(snapshot, snapshot.lookupTool, idempotencyKey) : { found: 'cannot_tell' };
    },
  });
}
