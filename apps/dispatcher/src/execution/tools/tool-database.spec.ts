import { ConfigError } from '@arvis/config';
import { ToolDatabases } from './tool-database';

// Each tool package's bodies connect with its own URL (its own database role, ADR 0034);
// packages without one share the tools' URL, and a URL for a package not loaded stops start-up.
describe('the tool packages\' pools', () => {
  const shared = 'postgresql://arvis_tools@db/arvis';
  let dbs: ToolDatabases | undefined;
  afterEach(async () => {
    await dbs?.onApplicationShutdown();
    dbs = undefined;
  });

  it('gives a package with its own URL its own pool, and the others the shared one', () => {
    dbs = new ToolDatabases(['@acme/a', '@acme/b', '@acme/c'], { url: shared, perPackage: { '@acme/a': 'postgresql://arvis_tool_acme_a@db/arvis' }, poolSize: 2 });
    expect(dbs.forPackage('@acme/a')).not.toBe(dbs.forPackage('@acme/b'));
    expect(dbs.forPackage('@acme/b')).toBe(dbs.forPackage('@acme/c'));
    expect((dbs.forPackage('@acme/a').options as { connectionString: string }).connectionString).toBe('postgresql://arvis_tool_acme_a@db/arvis');
    expect((dbs.forPackage('@acme/b').options as { connectionString: string }).connectionString).toBe(shared);
  });

  it('refuses a URL for a package that is not loaded', () => {
    const make = () => new ToolDatabases(['@acme/a'], { url: shared, perPackage: { '@acme/typo': shared }, poolSize: 2 });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/TOOL_DATABASE_URLS: @acme\/typo is not a loaded tool package/);
  });
});
