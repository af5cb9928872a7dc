import { z } from 'zod';

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const httpUrl = z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional());

export const TracesSampler = z.enum([
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]);
export type TracesSampler = z.infer<typeof TracesSampler>;

/**
 * OpenTelemetry's standard variable names, read here like every other setting (the SDK is handed
 * explicit values and never consulted for its own defaults). No endpoint: tracing is off.
 */
export const tracingEnvShape = {
  /** Base URL of an OTLP/HTTP receiver; traces go to <endpoint>/v1/traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  /** Full URL for traces; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl,
  OTEL_SERVICE_NAME: z.preprocess(unsetIfEmpty, z.string().min(1).max(200).optional()),
  OTEL_TRACES_SAMPLER: z.preprocess(unsetIfEmpty, TracesSampler.default('parentbased_always_on')),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(unsetIfEmpty, z.coerce.number().min(0).max(1).default(1)),
};

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP JSON); undefined: no spans are recorded or exported. */
  tracesUrl?: string;
  /** service.name of this process's spans; the service's own name when unset. */
  serviceName?: string;
  sampler: TracesSampler;
  /** Ratio for the traceidratio samplers. */
  samplerRatio: number;
}

type TracingEnv = z.output<z.ZodObject<typeof tracingEnvShape>>;

export function tracingSettings(env: TracingEnv): TracingSettings {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  return {
    tracesUrl: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined),
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerRatio: env.OTEL_TRACES_SAMPLER_ARG,
  };
}
