import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Sampler, SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '@arvis/config';
import type { TraceCarrier } from './trace-carrier';

/** Where a span hangs: a span of this process, a carrier or Kafka headers from another, or none (a new trace). */
export type SpanParent = Span | TraceCarrier | Record<string, string> | undefined;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  startTime?: Date;
}

// Required only when tracing is on: with it off, the SDK and the exporter stay unloaded (ADR 0051).
const sdk = (): typeof import('./sdk') => require('./sdk') as typeof import('./sdk');

/** A collector that does not answer must not hold up a stop (supervisors kill after a grace period). */
const SHUTDOWN_FLUSH_MS = 5000;

const isSpan = (p: SpanParent): p is Span => typeof (p as Span | undefined)?.spanContext === 'function';

/**
 * Manual spans at the pipeline's steps, and W3C trace context in and out of Kafka headers and
 * outbox rows. Nothing is registered globally: each service holds its own instance. Without an
 * endpoint the tracer is the API's no-op one: no span is recorded, yet an incoming traceparent
 * still passes through (a no-op span keeps its parent's context), so the journal keeps the
 * producer's trace id either way.
 */
export class Tracing {
  private readonly propagator = new W3CTraceContextPropagator();
  private stopped?: Promise<void>;

  private constructor(
    private readonly tracer: Tracer,
    private readonly provider?: TracerProvider,
  ) {}

  /** From configuration: an OTLP/HTTP (JSON) exporter behind a batch processor, or no-op without an endpoint. */
  static create(settings: TracingSettings, defaultServiceName: string): Tracing {
    if (!settings.tracesUrl) return Tracing.disabled();
    const { otlpProcessor, samplerFor } = sdk();
    return Tracing.withProcessor(otlpProcessor(settings.tracesUrl, settings.headers), settings.serviceName ?? defaultServiceName, samplerFor(settings), settings.resourceAttributes);
  }

  /** Any span processor (specs use an in-memory exporter). */
  static withProcessor(processor: SpanProcessor, serviceName: string, sampler?: Sampler, resourceAttributes?: Record<string, string>): Tracing {
    const provider = sdk().providerFor(processor, serviceName, sampler, resourceAttributes);
    return new Tracing(provider.getTracer('arvis'), provider);
  }

  static disabled(): Tracing {
    // A provider of our own, not the global one: nothing another package registers changes ours.
    return new Tracing(new ProxyTracerProvider().getTracer('arvis'));
  }

  get enabled(): boolean {
    return this.provider !== undefined;
  }

  startSpan(name: string, parent: SpanParent, options: SpanOptions = {}): Span {
    return this.tracer.startSpan(name, options, this.contextOf(parent));
  }

  /**
   * Runs one step of a batch under a span per item, each a child of that item's trace; items
   * without a trace get none. The spans end with the step, failed if it throws.
   */
  async inSpans<T>(name: string, parents: readonly (TraceCarrier | undefined)[], step: () => Promise<T>, options?: SpanOptions): Promise<T> {
    const spans = parents.flatMap((p) => (p ? [this.startSpan(name, p, options)] : []));
    if (spans.length === 0) return step();
    try {
      const out = await step();
      for (const s of spans) s.end();
      return out;
    } catch (e) {
      for (const s of spans) endSpan(s, e);
      throw e;
    }
  }

  /** The span's context as a carrier, or undefined when there is none (no-op span without a parent). */
  carrierOf(span: Span): TraceCarrier | undefined {
    if (!isSpanContextValid(span.spanContext())) return undefined;
    const out: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), out, defaultTextMapSetter);
    return out.traceparent ? (out as unknown as TraceCarrier) : undefined;
  }

  /** Flushes what the batch processor holds (for at most 5 s) and stops exporting; safe to call more than once. */
  shutdown(): Promise<void> {
    if (!this.stopped) {
      const provider = this.provider;
      this.stopped = provider
        ? new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
            provider.shutdown().catch(() => undefined).finally(() => {
              clearTimeout(timer);
              resolve();
            });
          })
        : Promise.resolve();
    }
    return this.stopped;
  }

  private contextOf(parent: SpanParent): Context {
    if (!parent) return ROOT_CONTEXT;
    if (isSpan(parent)) return trace.setSpan(ROOT_CONTEXT, parent);
    return this.propagator.extract(ROOT_CONTEXT, parent, defaultTextMapGetter);
  }
}

/** Ends a span, marking it failed when the step threw. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
  span.end();
}
