// ADR 0051: a process with tracing off never loads the OpenTelemetry SDK or the exporter.
describe('the tracing SDK', () => {
  const loaded = new Set<string>();
  beforeEach(() => {
    loaded.clear();
    jest.resetModules();
    for (const m of ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources']) {
      jest.doMock(m, () => {
        loaded.add(m);
        return jest.requireActual(m);
      });
    }
  });

  it('is not loaded when tracing is off, yet a traceparent still passes through', () => {
    jest.isolateModules(() => {
      const { Tracing } = jest.requireActual<typeof import('./tracing')>('./tracing');
      const tracing = Tracing.create({ sampler: 'parentbased_always_on', samplerRatio: 1 }, 'arvis-spec');
      const span = tracing.startSpan('authorize decision', { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
      expect(tracing.enabled).toBe(false);
      expect(tracing.carrierOf(span)?.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    });
    expect([...loaded]).toEqual([]);
  });

  it('is loaded when an endpoint is configured', async () => {
    let stop: Promise<void> = Promise.resolve();
    jest.isolateModules(() => {
      const { Tracing } = jest.requireActual<typeof import('./tracing')>('./tracing');
      const tracing = Tracing.create({ tracesUrl: 'http://127.0.0.1:9/v1/traces', sampler: 'always_off', samplerRatio: 1 }, 'arvis-spec');
      expect(tracing.enabled).toBe(true);
      stop = tracing.shutdown();
    });
    await stop;
    expect([...loaded].sort()).toEqual(['@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@opentelemetry/sdk-trace']);
  });
});
