import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import { traceIdOf, withTraceHeaders } from './trace-carrier';
import { Tracing } from './tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('Tracing', () => {
  const exporter = new InMemorySpanExporter();
  const tracing = Tracing.withProcessor(new SimpleSpanProcessor({ exporter }), 'arvis-spec');
  afterEach(() => exporter.reset());

  it('continues the trace of incoming Kafka headers (traceparent and tracestate)', () => {
    const span = tracing.startSpan('authorize decision', { traceparent: TRACEPARENT, tracestate: 'vendor=x', other: 'y' });
    const carrier = tracing.carrierOf(span)!;
    span.end();
    expect(traceIdOf(carrier)).toBe(TRACE_ID);
    expect(carrier.traceparent).not.toBe(TRACEPARENT); // a new span id under the same trace
    expect(carrier.tracestate).toBe('vendor=x');
    const [exported] = exporter.getFinishedSpans();
    expect(exported.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(exported.resource.attributes['service.name']).toBe('arvis-spec');
  });

  it('starts a new trace without a (valid) traceparent', () => {
    for (const parent of [undefined, {}, { traceparent: 'garbage' }] as (Record<string, string> | undefined)[]) {
      const span = tracing.startSpan('authorize decision', parent);
      expect(traceIdOf(tracing.carrierOf(span))).toMatch(/^[0-9a-f]{32}$/);
      expect(traceIdOf(tracing.carrierOf(span))).not.toBe(TRACE_ID);
      span.end();
    }
  });

  it('runs a batch step under one child span per traced item, and marks them failed when it throws', async () => {
    const parent = tracing.startSpan('dispatch intent', { traceparent: TRACEPARENT });
    const carrier = tracing.carrierOf(parent);
    await expect(tracing.inSpans('claim capability', [carrier, undefined], () => Promise.resolve(7))).resolves.toBe(7);
    await expect(tracing.inSpans('run tool', [carrier], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    parent.end();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['claim capability', 'run tool', 'dispatch intent']);
    expect(spans.every((s) => s.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(spans[1].status).toMatchObject({ code: 2, message: 'boom' });
  });
});

describe('Tracing without an endpoint', () => {
  const off = Tracing.create({ sampler: 'parentbased_always_on', samplerRatio: 1 }, 'arvis-spec');

  it('records nothing but passes an incoming trace context through unchanged', () => {
    expect(off.enabled).toBe(false);
    const span = off.startSpan('authorize decision', { traceparent: TRACEPARENT, tracestate: 'vendor=x' });
    expect(span.isRecording()).toBe(false);
    expect(off.carrierOf(span)).toEqual({ traceparent: TRACEPARENT, tracestate: 'vendor=x' });
  });

  it('has no trace context for a message that brought none', () => {
    expect(off.carrierOf(off.startSpan('authorize decision', {}))).toBeUndefined();
  });
});

describe('trace carriers', () => {
  it('set traceparent and tracestate over existing headers, dropping a stale tracestate', () => {
    expect(withTraceHeaders({ a: '1', tracestate: 'old=1' }, { traceparent: TRACEPARENT })).toEqual({ a: '1', traceparent: TRACEPARENT });
    expect(withTraceHeaders(undefined, { traceparent: TRACEPARENT, tracestate: 's=1' })).toEqual({ traceparent: TRACEPARENT, tracestate: 's=1' });
    expect(withTraceHeaders({ a: '1' }, undefined)).toEqual({ a: '1' });
  });

  it('give a trace id only for a valid traceparent', () => {
    expect(traceIdOf({ traceparent: TRACEPARENT })).toBe(TRACE_ID);
    expect(traceIdOf({ traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` })).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
  });
});

describe('Tracing shutdown', () => {
  it('flushes spans still held by a batch processor', async () => {
    // InMemorySpanExporter forgets its spans on shutdown, so this one keeps them.
    const exported: string[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans.map((s) => s.name));
        done({ code: 0 });
      },
      shutdown: () => Promise.resolve(),
    };
    const tracing = Tracing.withProcessor(new BatchSpanProcessor({ exporter, scheduledDelayMillis: 60_000 }), 'arvis-spec');
    tracing.startSpan('relay publish', { traceparent: TRACEPARENT }).end();
    expect(exported).toEqual([]);
    await tracing.shutdown();
    await tracing.shutdown(); // a second call is harmless
    expect(exported).toEqual(['relay publish']);
  });
});
