import { endSpan, SpanKind, type Span, type Tracing } from '@arvis/tracing';
import type { VerifiedIntent } from '../verify-intent/verify-intent-messages';

/**
 * One "dispatch intent" span per verified intent of a slice, child of the traceparent header the
 * relay sent with it, so the dispatcher's work joins the decision's trace (ADR 0028). Its context
 * is handed to the intent (`trace`): the claim, run and record spans and the journal entries
 * hang from it. Verification ran before any span could know its parent, so it is recorded as a
 * child span after the fact, from the slice's arrival.
 */
export class IntentTraces {
  private readonly spans: Span[] = [];

  constructor(private readonly tracing: Tracing) {}

  begin(verified: readonly VerifiedIntent[], receivedAt: Date): void {
    for (const v of verified) {
      const span = this.tracing.startSpan('dispatch intent', v.message.headers, {
        kind: SpanKind.CONSUMER,
        startTime: receivedAt,
        attributes: { 'arvis.decision_id': v.intent.decisionId, 'arvis.run_id': v.intent.runId, 'arvis.capability_id': v.intent.capabilityId, 'arvis.tool': v.intent.tool },
      });
      this.tracing.startSpan('verify intent', span, { startTime: receivedAt }).end();
      v.trace = this.tracing.carrierOf(span);
      this.spans.push(span);
    }
  }

  end(error?: unknown): void {
    for (const span of this.spans) endSpan(span, error);
  }
}
