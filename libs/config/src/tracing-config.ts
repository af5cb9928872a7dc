import { z } from 'zod';

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const httpUrl = z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional());

/**
 * OpenTelemetry's `key=value,key=value` lists (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS),
 * values percent-decoded as the specification says. A pair without `=` or with an empty key is an
 * error at start-up, not an attribute silently dropped.
 */
export function parseKeyValueList(text: string): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  const out: Record<string, string> = {};
  const pairs = text.split(',');
  for (const [i, raw] of pairs.entries()) {
    const pair = raw.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    // Named by position: a pair without `=` may be a pasted credential.
    if (eq <= 0) return { ok: false, error: `pair ${i + 1} is not key=value` };
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      return { ok: false, error: `the value of "${pair.slice(0, eq).trim()}" is not percent-encoded correctly` };
    }
    out[pair.slice(0, eq).trim()] = value;
  }
  return { ok: true, value: out };
}

const keyValueList = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((text, ctx) => {
      const parsed = parseKeyValueList(text);
      if (parsed.ok) return parsed.value;
      // The text itself is never quoted back: header values are credentials.
      ctx.addIssue({ code: 'custom', message: `must be key=value pairs separated by commas (${parsed.error})` });
      return z.NEVER;
    })
    .optional(),
);

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
  /** Extra resource attributes of every span (deployment.environment=prod,k8s.namespace.name=arvis). */
  OTEL_RESOURCE_ATTRIBUTES: keyValueList,
  /** Headers of every OTLP request (a collector's API key); a secret. */
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList,
  /** Headers of the trace export requests; merged over OTEL_EXPORTER_OTLP_HEADERS. */
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList,
};

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP JSON); undefined: no spans are recorded or exported. */
  tracesUrl?: string;
  /** service.name of this process's spans; the service's own name when unset. */
  serviceName?: string;
  sampler: TracesSampler;
  /** Ratio for the traceidratio samplers. */
  samplerRatio: number;
  /** OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME (or the service's name) wins over its service.name. */
  resourceAttributes?: Record<string, string>;
  /** Sent with every export request (OTEL_EXPORTER_OTLP_HEADERS, then _TRACES_HEADERS over them). */
  headers?: Record<string, string>;
}

type TracingEnv = z.output<z.ZodObject<typeof tracingEnvShape>>;

export function tracingSettings(env: TracingEnv): TracingSettings {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  return {
    tracesUrl: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined),
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerRatio: env.OTEL_TRACES_SAMPLER_ARG,
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES ?? {},
    headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
  };
}
