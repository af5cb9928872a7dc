import { endSpan, SpanKind, type Span, type TraceCarrier, type Tracing } from '@arvis/tracing';
import type { Candidate } from './pipeline.types';

/** A decision's trace context, by decision id (unique within a slice). */
export type TraceOf = (decisionId: string) => TraceCarrier | undefined;

/**
 * One trace per decision, though the pipeline works a slice at a time: an "authorize decision"
 * span per candidate, child of the producer's traceparent header when the message had one (else
 * a new trace), and a "commit intent" child for each decision whose intent a transaction attempt
 * records. Outbox rows and journal entries take the innermost span's context (ADR 0028).
 */
export class DecisionTraces {
  private readonly decisions = new Map<string, Span>();
  private commits = new Map<string, Span>();

  constructor(
    private readonly tracing: Tracing,
    candidates: readonly Candidate[],
  ) {
    for (const { decision: d, origin } of candidates) {
      const span = tracing.startSpan('authorize decision', origin.kind === 'message' ? origin.message.headers : undefined, {
        kind: SpanKind.CONSUMER,
        attributes: { 'arvis.decision_id': d.decisionId, 'arvis.run_id': d.runId, 'arvis.tool': d.tool, 'arvis.origin': origin.kind },
      });
      this.decisions.set(d.decisionId, span);
    }
  }

  startCommits(decisionIds: readonly string[]): void {
    for (const id of decisionIds) {
      const parent = this.decisions.get(id);
      if (parent) this.commits.set(id, this.tracing.startSpan('commit intent', parent));
    }
  }

  /** After each transaction attempt: a failed attempt's commits end as failed. */
  endCommits(error?: unknown): void {
    for (const span of this.commits.values()) endSpan(span, error);
    this.commits = new Map();
  }

  readonly traceOf: TraceOf = (decisionId) => {
    const span = this.commits.get(decisionId) ?? this.decisions.get(decisionId);
    return span && this.tracing.carrierOf(span);
  };

  end(error?: unknown): void {
    this.endCommits(error);
    for (const span of this.decisions.values()) endSpan(span, error);
  }
}
