import { z } from 'zod';
import { commonEnvShape, commonSettings } from './common-config';
import { ConfigError, loadConfig } from './load-config';

const tracing = (env: Record<string, string>) => commonSettings(loadConfig(z.object(commonEnvShape), { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', ...env }), 'client', 'group').tracing;

describe('tracing settings (OpenTelemetry standard variables)', () => {
  it('are off without an endpoint, parent-based always-on otherwise', () => {
    expect(tracing({})).toEqual({ tracesUrl: undefined, serviceName: undefined, sampler: 'parentbased_always_on', samplerRatio: 1 });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracesUrl).toBeUndefined();
  });

  it('send traces to <endpoint>/v1/traces, or to the traces endpoint as given', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).tracesUrl).toBe('http://127.0.0.1:4318/v1/traces');
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces' }).tracesUrl,
    ).toBe('https://b/otlp/traces');
  });

  it('read the service name and sampler', () => {
    expect(tracing({ OTEL_SERVICE_NAME: 'edge-authorizer', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      serviceName: 'edge-authorizer',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
  });

  it('refuse a bad endpoint, sampler or ratio, naming each', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_TRACES_SAMPLER_ARG: '2' };
    try {
      tracing(env);
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.split(':')[0]).sort();
      expect(paths).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']);
    }
  });
});
