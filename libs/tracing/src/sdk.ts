import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '@arvis/config';

// The OpenTelemetry SDK and exporter: required by tracing.ts only when tracing is on (ADR 0051),
// so a process with tracing off never loads these modules.

export function samplerFor(s: TracingSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(s.samplerRatio);
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** An OTLP/HTTP (JSON) exporter behind a batch processor. */
export function otlpProcessor(url: string, headers: Record<string, string> = {}): SpanProcessor {
  return new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url, headers }) });
}

export function providerFor(
  processor: SpanProcessor,
  serviceName: string,
  sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  resourceAttributes: Record<string, string> = {},
): TracerProvider {
  return new TracerProvider({
    // The SDK is never left to read OTEL_* itself (config validated them); the service name wins over the attributes' own.
    resource: defaultResource().merge(resourceFromAttributes({ ...resourceAttributes, [ATTR_SERVICE_NAME]: serviceName })),
    sampler,
    spanProcessors: [processor],
  });
}
