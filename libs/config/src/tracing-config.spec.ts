import { z } from 'zod';
import { commonEnvShape, commonSettings } from './common-config';
import { ConfigError, loadConfig } from './load-config';

const tracing = (env: Record<string, string>) => commonSettings(loadConfig(z.object(commonEnvShape), { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', ...env }), 'client', 'group').tracing;

describe('tracing settings (OpenTelemetry standard variables)', () => {
  it('are off without an endpoint, parent-based always-on otherwise', () => {
    expect(tracing({})).toEqual({ tracesUrl: undefined, serviceName: undefined, sampler: 'parentbased_always_on', samplerRatio: 1, resourceAttributes: {}, headers: {} });
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

  it('read OTEL_RESOURCE_ATTRIBUTES and the export headers, percent-decoded, trace headers over the general ones', () => {
    expect(
      tracing({
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod, k8s.namespace.name=arvis,team=pay%20ments',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=general,x-tenant=a',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=traces%3D1',
      }),
    ).toMatchObject({
      resourceAttributes: { 'deployment.environment': 'prod', 'k8s.namespace.name': 'arvis', team: 'pay ments' },
      headers: { 'x-api-key': 'traces=1', 'x-tenant': 'a' },
    });
  });

  it('refuse a list that is not key=value pairs, without quoting a header value back', () => {
    try {
      tracing({ OTEL_RESOURCE_ATTRIBUTES: 'prod', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%ZZsecret-value' });
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const issues = (e as ConfigError).issues;
      expect(issues.map((i) => i.split(':')[0]).sort()).toEqual(['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_RESOURCE_ATTRIBUTES']);
      expect(issues.join('\n')).not.toContain('secret-value');
    }
  });
});
