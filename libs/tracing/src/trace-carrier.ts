import { isSpanContextValid } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';

/**
 * A W3C trace context as plain data: stored in an outbox row, sent as Kafka headers, copied into
 * a journal entry's traceId. Header names are W3C's (lower case).
 */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** The trace id of a carrier (32 lowercase hex), or undefined if it is not a valid traceparent. */
export function traceIdOf(carrier: TraceCarrier | undefined): string | undefined {
  if (!carrier) return undefined;
  const parsed = parseTraceParent(carrier.traceparent);
  return parsed && isSpanContextValid(parsed) ? parsed.traceId : undefined;
}

/** Kafka headers with the carrier's fields set over any the message already had. */
export function withTraceHeaders(headers: Record<string, string> | undefined, carrier: TraceCarrier | undefined): Record<string, string> | undefined {
  if (!carrier) return headers;
  const out: Record<string, string> = { ...headers, traceparent: carrier.traceparent };
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  else delete out.tracestate;
  return out;
}
