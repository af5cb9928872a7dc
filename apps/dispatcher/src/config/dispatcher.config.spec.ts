import { ConfigError } from '@arvis/config';
import { loadDispatcherConfig } from './dispatcher.config';

const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }) };
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

  it('connects the tool bodies with DATABASE_URL unless TOOL_DATABASE_URL or a package\'s own URL is set', () => {
    const db = 'postgresql://arvis_dispatcher@db/arvis';
    expect(loadDispatcherConfig({ ...base, DATABASE_URL: db }).toolDatabase).toEqual({ url: db, perPackage: {}, poolSize: 8 });
    const own = { '@arvis/tool-demo': 'postgresql://arvis_tool_arvis_tool_demo@db/arvis' };
    const c = loadDispatcherConfig({ ...base, DATABASE_URL: db, TOOL_DATABASE_URL: 'postgresql://t@db/arvis', TOOL_DATABASE_URLS: JSON.stringify(own) });
    expect(c.toolDatabase).toEqual({ url: 'postgresql://t@db/arvis', perPackage: own, poolSize: 8 });
    expect(() => loadDispatcherConfig({ ...base, TOOL_DATABASE_URLS: JSON.stringify({ p: 'mysql://x' }) })).toThrow(/TOOL_DATABASE_URLS/);
    expect(() => loadDispatcherConfig({ ...base, TOOL_DATABASE_URL: 'db' })).toThrow(/TOOL_DATABASE_URL/);
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
