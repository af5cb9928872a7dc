import { ConfigError } from '@arvis/config';
import { loadDispatcherConfig } from './dispatcher.config';

const base = { INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }) };
const fp = (c: string) => c.repeat(64);

describe('dispatcher configuration: tool packages and accepted catalogs', () => {
  it('reads ARVIS_TOOL_PACKAGES as a list, empty when unset (the module then refuses to start)', () => {
    expect(loadDispatcherConfig({ ...base, ARVIS_TOOL_PACKAGES: './dist/tools/demo, @acme/tools' }).toolPackages).toEqual(['./dist/tools/demo', '@acme/tools']);
    expect(loadDispatcherConfig(base).toolPackages).toEqual([]);
  });

  it('takes ACCEPTED_CATALOG_FINGERPRINTS as a JSON list or comma-separated, and refuses anything else', () => {
    expect(loadDispatcherConfig({ ...base, ACCEPTED_CATALOG_FINGERPRINTS: JSON.stringify([fp('a')]) }).acceptedCatalogFingerprints).toEqual([fp('a')]);
    expect(loadDispatcherConfig({ ...base, ACCEPTED_CATALOG_FINGERPRINTS: `${fp('a')}, ${fp('b')}` }).acceptedCatalogFingerprints).toEqual([fp('a'), fp('b')]);
    expect(loadDispatcherConfig(base).acceptedCatalogFingerprints).toEqual([]);
    expect(() => loadDispatcherConfig({ ...base, ACCEPTED_CATALOG_FINGERPRINTS: 'abc' })).toThrow(ConfigError);
    expect(() => loadDispatcherConfig({ ...base, ACCEPTED_CATALOG_FINGERPRINTS: fp('A') })).toThrow(ConfigError);
  });
});

describe('dispatcher configuration: its one HTTP port, the management port', () => {
  it('is MANAGEMENT_PORT, or HTTP_PORT (its former name) when that is all a deployment sets, or 3002', () => {
    expect(loadDispatcherConfig({ ...base, MANAGEMENT_PORT: '9102', HTTP_PORT: '9000' }).managementPort).toBe(9102);
    expect(loadDispatcherConfig({ ...base, HTTP_PORT: '9000' }).managementPort).toBe(9000);
    expect(loadDispatcherConfig(base).managementPort).toBe(3002);
    expect(() => loadDispatcherConfig({ ...base, MANAGEMENT_PORT: '70000' })).toThrow(ConfigError);
  });
});
