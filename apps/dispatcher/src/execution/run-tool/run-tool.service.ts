import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Histogram } from 'prom-client';
import { decisionFields, MetricsRegistry } from '@arvis/runtime';
import type { AuthorizedEffectContext } from '@arvis/effect-context';
import { ToolCatalog } from '@arvis/tool-catalog';
import { FaultPoints } from '../../fault-points/fault-points';
import { runBody } from '@arvis/tool-sdk';
import { classifyResult, type Classified } from '../../outcomes/classify-result/classify-result';
import { TOOL_BODIES, type ToolBody } from '../tools/tool-body';
import { redeemConsumptionProof, type ConsumptionProof } from './consumption-proof';
import { EFFECT_DEADLINES, type EffectDeadlines } from './effect-deadlines';
import { InvocationLogger } from './invocation-logger';

export interface PreparedRun {
  decisionId: string;
  capabilityId: string;
  tool: string;
  payload: Readonly<Record<string, unknown>>;
  effectContext: AuthorizedEffectContext;
  idempotencyKey: string;
  /** 1 for a first attempt, n + 1 for retry n. */
  attempt: number;
}

/**
 * Runs one tool body for a capability this dispatcher has consumed. Only RunClaimedService
 * calls it, after effect_started has committed; there is no other route to a tool body.
 */
@Injectable()
export class RunToolService {
  private readonly bodies: ReadonlyMap<string, ToolBody>;
  private readonly duration?: Histogram;

  constructor(
    private readonly catalog: ToolCatalog,
    @Inject(TOOL_BODIES) bodies: ToolBody[],
    private readonly faults: FaultPoints,
    @Optional() metrics?: MetricsRegistry,
    @Optional() @Inject(EFFECT_DEADLINES) private readonly deadlines?: EffectDeadlines,
  ) {
    this.bodies = new Map(bodies.map((b) => [b.name, b]));
    // tool: the catalog's names only (a body runs only for a tool this dispatcher has).
    this.duration = metrics && new Histogram({
      name: 'arvis_tool_duration_seconds',
      help: 'Tool body run time, by tool and how it ended (returned, threw, timed_out)',
      labelNames: ['tool', 'outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics],
    });
  }

  /**
   * Throws ForbiddenRouteError unless `proof` was issued for this consumed capability, once.
   * `onLateSettle`: called with the body's own result when it settles after its timeout was
   * classified (the body did not stop at its abort), so it can be recorded as late (ADR 0056).
   */
  async run(proof: ConsumptionProof, p: PreparedRun, onLateSettle?: (late: Classified) => void): Promise<Classified> {
    redeemConsumptionProof(proof, p.capabilityId);
    const spec = this.catalog.get(p.tool);
    const body = this.bodies.get(p.tool);
    if (!spec || !body) return classifyResult({ kind: 'not_available', detail: `tool ${p.tool} has no body here` }, () => null);
    const deadlines = this.deadlines;
    // The one copy of parse, run, parse and classify, shared with @arvis/tool-sdk/testing.
    return runBody(
      spec,
      (controls) =>
        body.execute({
          ...controls,
          decisionId: p.decisionId,
          effectContext: p.effectContext,
          idempotencyKey: p.idempotencyKey,
          capabilityId: p.capabilityId,
          attempt: p.attempt,
          logger: new InvocationLogger(TOOL_LOG, decisionFields({ decisionId: p.decisionId, tool: p.tool, capabilityId: p.capabilityId })),
        }),
      p.payload,
      {
        extendDeadline: deadlines && ((timeoutMs, maxRunMs) => deadlines.extend(p.capabilityId, timeoutMs, maxRunMs)),
        onHeartbeatError: (e) => TOOL_LOG.warn({ msg: 'heartbeat not written', capabilityId: p.capabilityId, tool: p.tool, error: e.message }),
        beforeStart: () => this.faults.beforeBodyStartMarker(p.decisionId),
        afterReturn: () => this.faults.afterToolBody(p.decisionId),
        observe: (outcome, latencyMs) => this.duration?.observe({ tool: p.tool, outcome }, latencyMs / 1000),
        onLateSettle,
      },
    );
  }
}

const TOOL_LOG = new Logger('Tool');
