import { z } from 'zod';
import { buildEffectContext } from '@arvis/effect-context';
import { defineTool, ToolCatalog } from '@arvis/tool-catalog';
import { NonRetryableToolError, ToolError } from '@arvis/tool-sdk';
import { NO_FAULTS } from '../../fault-points/fault-points';
import type { ToolBody, ToolInvocation } from '../tools/tool-body';
import { ForbiddenRouteError, issueConsumptionProof } from './consumption-proof';
import { RunToolService } from './run-tool.service';

const spec = defineTool({
  name: 'test.echo',
  description: 'echo',
  input: z.strictObject({ text: z.string() }),
  output: z.strictObject({ echoed: z.string() }),
  idempotent: true,
  retryable: true,
  sideEffectful: false,
  timeoutMs: 50,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  execute: async () => ({ echoed: 'the body under test is the runner() one' }),
});

const effectContext = buildEffectContext(
  { principal: 'alice', tenant: 'acme', issuer: 'iss', authenticationStrength: 'mfa', serviceId: 'svc', sessionId: null, roles: [], person: null, expiresAt: new Date(), issuedAt: null },
  { processId: 'default', runId: 'run-1' },
);

function runner(execute: (inv: ToolInvocation) => Promise<unknown>): { service: RunToolService; seen: ToolInvocation[] } {
  const seen: ToolInvocation[] = [];
  const body: ToolBody = {
    name: 'test.echo',
    execute: (inv) => {
      seen.push(inv);
      return execute(inv);
    },
  };
  return { service: new RunToolService(new ToolCatalog([spec]), [body], NO_FAULTS), seen };
}

const prepared = (payload: Record<string, unknown>) => ({
  decisionId: 'd-1',
  capabilityId: 'cap-1',
  tool: 'test.echo',
  payload,
  effectContext,
  idempotencyKey: `idem:${'a'.repeat(64)}`,
  attempt: 2,
});
const run = (service: RunToolService, payload: Record<string, unknown>) => service.run(issueConsumptionProof('cap-1'), prepared(payload));

describe('RunToolService classification', () => {
  it('hands the tool exactly the validated input, effect context, idempotency key, capability and decision ids, an abort signal, a heartbeat, the attempt and a logger', async () => {
    const { service, seen } = runner(async (inv) => ({ echoed: String((inv.input as { text: string }).text) }));
    const r = await run(service, { text: 'hi' });
    expect(r).toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { echoed: 'hi' } });
    expect(Object.keys(seen[0]).sort()).toEqual(['attempt', 'capabilityId', 'decisionId', 'effectContext', 'heartbeat', 'idempotencyKey', 'input', 'logger', 'signal']);
    expect(seen[0].attempt).toBe(2);
    expect(seen[0].signal.aborted).toBe(false);
  });

  it('refuses before the effect when the input no longer validates (pre_effect_refusal), without calling the tool', async () => {
    const { service, seen } = runner(async () => ({ echoed: 'x' }));
    const r = await run(service, { text: 42 });
    expect(r).toMatchObject({ effectBoundary: 'pre_effect_refusal', reasonCode: 'input_schema_violation' });
    expect(seen).toHaveLength(0);
  });

  it('classifies a tool that has not answered by timeoutMs as effect_state_unknown (tool_timeout) and signals it to abort', async () => {
    const { service, seen } = runner((inv) => new Promise((resolve) => inv.signal.addEventListener('abort', () => setTimeout(() => resolve({ echoed: 'late' }), 5))));
    const r = await run(service, { text: 'slow' });
    expect(r).toMatchObject({ effectBoundary: 'effect_state_unknown', success: false, reasonCode: 'tool_timeout' });
    expect(seen[0].signal.aborted).toBe(true);
  });

  // ADR 0056: a timed-out body that goes on and settles has its own result recorded as late.
  it('hands a timed-out body\'s own result, when it settles, to the late callback; a body on time calls it never', async () => {
    const { service } = runner((inv) => new Promise((resolve) => inv.signal.addEventListener('abort', () => setTimeout(() => resolve({ echoed: 'late' }), 5))));
    const late = new Promise((resolve) => void service.run(issueConsumptionProof('cap-1'), prepared({ text: 'slow' }), resolve));
    await expect(late).resolves.toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { echoed: 'late' } });
    const onTime = runner(async () => ({ echoed: 'x' }));
    const calls: unknown[] = [];
    await onTime.service.run(issueConsumptionProof('cap-1'), prepared({ text: 'x' }), (r) => calls.push(r));
    expect(calls).toEqual([]);
  });

  it('classifies a throwing tool as effect_failed (tool_execution_failed)', async () => {
    const { service } = runner(async () => {
      throw new Error('boom');
    });
    expect(await run(service, { text: 'x' })).toMatchObject({ effectBoundary: 'effect_failed', reasonCode: 'tool_execution_failed' });
  });

  it('puts a ToolError\'s own code, and a non-retryable one\'s flag, in the error\'s details; the reason code stays tool_execution_failed', async () => {
    const coded = runner(async () => {
      throw new ToolError('card_declined', 'declined');
    });
    expect(await run(coded.service, { text: 'x' })).toMatchObject({ reasonCode: 'tool_execution_failed', error: { code: 'tool_execution_failed', details: { toolErrorCode: 'card_declined' } } });
    const final = runner(async () => {
      throw new NonRetryableToolError('account_closed', 'closed');
    });
    expect((await run(final.service, { text: 'x' })).error?.details).toEqual({ toolErrorCode: 'account_closed', nonRetryable: true });
  });

  it('classifies output that violates the output schema as effect_completed with tool_output_invalid', async () => {
    const { service } = runner(async () => ({ wrong: true }));
    expect(await run(service, { text: 'x' })).toMatchObject({ effectBoundary: 'effect_completed', success: false, reasonCode: 'tool_output_invalid' });
  });
});

describe('forbidden routes to a tool body', () => {
  it('refuses a call without a proof issued for a consumed capability, and never reaches the body', async () => {
    const { service, seen } = runner(async () => ({ echoed: 'x' }));
    await expect(service.run({ capabilityId: 'cap-1' }, prepared({ text: 'x' }))).rejects.toThrow(ForbiddenRouteError);
    expect(seen).toHaveLength(0);
  });

  it('refuses a proof for another capability, and a proof used twice', async () => {
    const { service, seen } = runner(async () => ({ echoed: 'x' }));
    await expect(service.run(issueConsumptionProof('cap-2'), prepared({ text: 'x' }))).rejects.toThrow(/another capability/);
    const proof = issueConsumptionProof('cap-1');
    await service.run(proof, prepared({ text: 'x' }));
    await expect(service.run(proof, prepared({ text: 'x' }))).rejects.toThrow(ForbiddenRouteError);
    expect(seen).toHaveLength(1);
  });
});

// ADR 0077: a heartbeat moves the body's timeout (once its write committed), never past maxRunMs.
describe('a body that heartbeats', () => {
  const long = defineTool({ ...spec, timeoutMs: 60, maxRunMs: 400 });
  const heartbeating = (runMs: number, extend: () => Promise<boolean>) => {
    const writes: string[] = [];
    const body: ToolBody = {
      name: 'test.echo',
      execute: async (inv) => {
        const started = Date.now();
        while (Date.now() - started < runMs && !inv.signal.aborted) {
          inv.heartbeat();
          await new Promise((r) => setTimeout(r, 10));
        }
        return { echoed: inv.signal.aborted ? 'aborted' : 'done' };
      },
    };
    const deadlines = { extend: (id: string) => (writes.push(id), extend()) };
    return { service: new RunToolService(new ToolCatalog([long]), [body], NO_FAULTS, undefined, deadlines), writes };
  };

  it('runs past its timeout while its heartbeats are written, a third of the timeout apart at most', async () => {
    const { service, writes } = heartbeating(200, async () => true);
    expect(await run(service, { text: 'x' })).toMatchObject({ effectBoundary: 'effect_completed', output: { echoed: 'done' } });
    // About 20 calls in 200 ms, at most one written per 20 ms.
    expect(writes.length).toBeGreaterThan(2);
    expect(writes.length).toBeLessThanOrEqual(11);
  });

  it('is timed out at its maximum run time however it heartbeats', async () => {
    const { service } = heartbeating(5000, async () => true);
    const r = await run(service, { text: 'x' });
    expect(r).toMatchObject({ effectBoundary: 'effect_state_unknown', reasonCode: 'tool_timeout' });
    expect(r.latencyMs).toBeGreaterThanOrEqual(395);
    expect(r.latencyMs).toBeLessThan(1000);
  });

  it('is timed out at its timeout when its heartbeats are not written (the effect was closed)', async () => {
    const { service, writes } = heartbeating(5000, async () => false);
    const r = await run(service, { text: 'x' });
    expect(r).toMatchObject({ effectBoundary: 'effect_state_unknown', reasonCode: 'tool_timeout' });
    expect(r.latencyMs).toBeLessThan(200);
    expect(writes).toHaveLength(1);
  });

  it('writes nothing for a tool without a maximum run time', async () => {
    const writes: string[] = [];
    const body: ToolBody = {
      name: 'test.echo',
      execute: async (inv) => {
        // Past a third of its timeout: a tool with a maximum run time would write here.
        await new Promise((r) => setTimeout(r, 30));
        inv.heartbeat();
        return { echoed: 'x' };
      },
    };
    const service = new RunToolService(new ToolCatalog([spec]), [body], NO_FAULTS, undefined, { extend: async (id) => (writes.push(id), true) });
    expect(await run(service, { text: 'x' })).toMatchObject({ success: true });
    expect(writes).toEqual([]);
  });
});
