import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Histogram } from 'prom-client';
import { decisionFields, MetricsRegistry } from '@arvis/runtime';
import type { AuthorizedEffectContext } from '@arvis/effect-context';
import { ToolCatalog, type ToolSpec } from '@arvis/tool-catalog';
import { FaultPoints } from '../fault-points/fault-points';
import { classifyResult, type Classified, type ToolOutcome } from '../classify-result/classify-result';
import { TOOL_BODIES, type ToolBody } from '../tools/tool-body';
import { BodyClock } from './body-clock';
import { redeemConsumptionProof, type ConsumptionProof } from './consumption-proof';
import { EFFECT_DEADLINES, type EffectDeadlines } from './effect-deadlines';
import { HeartbeatPacer } from './heartbeat-pacer';
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
    const validateOutput = (o: unknown) => {
      const r = spec!.output.safeParse(o);
      return r.success ? null : r.error.issues.map((i) => `${i.path.join('.') || '(output)'}: ${i.message}`).join('; ');
    };
    if (!spec || !body) return classifyResult({ kind: 'not_available', detail: `tool ${p.tool} has no body here` }, validateOutput);
    // Defence in depth: the frozen payload is validated again right before the effect.
    const input = spec.input.safeParse(p.payload);
    if (!input.success) return classifyResult({ kind: 'input_invalid', detail: input.error.message }, validateOutput);

    this.faults.beforeBodyStartMarker(p.decisionId);
    const clock = new BodyClock(spec.timeoutMs);
    // Through a promise, so a body that throws before returning one is classified like any failure.
    const execution = Promise.resolve()
      .then(() => body.execute({
        input: input.data,
        decisionId: p.decisionId,
        effectContext: p.effectContext,
        idempotencyKey: p.idempotencyKey,
        capabilityId: p.capabilityId,
        signal: clock.controller.signal,
        heartbeat: this.heartbeatOf(spec, p.capabilityId, clock),
        attempt: p.attempt,
        logger: new InvocationLogger(TOOL_LOG, decisionFields({ decisionId: p.decisionId, tool: p.tool, capabilityId: p.capabilityId })),
      }))
      .then(
        (output): ToolOutcome => {
          this.faults.afterToolBody(p.decisionId);
          return { kind: 'returned', output, latencyMs: clock.elapsed() };
        },
        (error: unknown): ToolOutcome => ({
          kind: 'threw',
          error: error instanceof Error ? error : new Error(String(error)),
          latencyMs: clock.elapsed(),
        }),
      );
    try {
      const first = await Promise.race([execution, clock.timedOut]);
      if ('latencyMs' in first) this.duration?.observe({ tool: p.tool, outcome: first.kind }, first.latencyMs / 1000);
      if (first.kind === 'timed_out' && onLateSettle) void execution.then((o) => onLateSettle(classifyResult(o, validateOutput)));
      return classifyResult(first, validateOutput);
    } finally {
      clock.clear();
    }
  }

  /**
   * A no-op unless the tool declares a maximum run time beyond its timeout and heartbeats can be
   * written here: no statement, no state for any other tool. Otherwise each counted heartbeat is
   * one statement moving the stored deadline, and then the process's own abort time (ADR 0077).
   */
  private heartbeatOf(spec: ToolSpec, capabilityId: string, clock: BodyClock): () => void {
    const maxRunMs = spec.maxRunMs ?? spec.timeoutMs;
    const deadlines = this.deadlines;
    if (maxRunMs <= spec.timeoutMs || !deadlines) return NO_HEARTBEAT;
    const pacer = new HeartbeatPacer(spec.timeoutMs, maxRunMs);
    return () => {
      const at = clock.now();
      if (clock.settled || !pacer.beat(at)) return;
      deadlines.extend(capabilityId, spec.timeoutMs, maxRunMs).then(
        (moved) => (moved ? clock.abortAt(pacer.written(at)) : pacer.close()),
        (e: Error) => {
          pacer.failed();
          TOOL_LOG.warn({ msg: 'heartbeat not written', capabilityId, tool: spec.name, error: e.message });
        },
      );
    };
  }
}

const NO_HEARTBEAT = (): void => {};
const TOOL_LOG = new Logger('Tool');
