import { ConfigError } from '@arvis/config';
import { assembleTools, type ToolPackage } from '@arvis/tool-catalog';
import { loadDispatcherConfig } from './dispatcher.config';
import { DispatcherPools, poolConsumers } from './dispatcher-pools';
import { specTool } from '../../../../test/support/spec-tool';

const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }), KAFKA_GROUP_ID: 'g' };
const pkg = (name: string, pool?: string): ToolPackage => ({ name, version: '1.0.0', tools: [specTool(`${name}.run`)], ...(pool ? { pool } : {}) }) as ToolPackage;
const pools = (env: Record<string, string>, packages: ToolPackage[]) => new DispatcherPools(loadDispatcherConfig({ ...base, ...env }), assembleTools(packages));

describe('a dispatcher serves the pools of DISPATCHER_POOLS', () => {
  it('serves the shared pool when unset, in its own group on the intents topic, as before pools', () => {
    const c = loadDispatcherConfig(base);
    expect(c.pools).toEqual(['shared']);
    expect(poolConsumers(c)).toEqual([{ name: 'shared', groupId: 'g', topics: { intents: 'arvis.intents' } }]);
    const p = pools({}, [pkg('a')]);
    // One pool: its catalog is the whole catalog, so intents minted before pools still match.
    expect(p.served[0].fingerprint).toBe(assembleTools([pkg('a')]).catalog.fingerprint);
  });

  it('gives each pool its topic and group, and a fingerprint over only its packages', () => {
    const p = pools({ DISPATCHER_POOLS: 'shared, ledger' }, [pkg('a'), pkg('b', 'ledger')]);
    expect(p.served.map((s) => [s.name, s.topic, s.groupId])).toEqual([
      ['shared', 'arvis.intents', 'g'],
      ['ledger', 'arvis.intents.pool.ledger', 'g.pool.ledger'],
    ]);
    expect(p.get('ledger')!.fingerprint).toBe(assembleTools([pkg('b', 'ledger')]).catalog.fingerprint);
    expect(p.ofTopic('arvis.intents.pool.ledger').name).toBe('ledger');
  });

  it('refuses a package of a pool it does not serve, and a pool it loaded no package for', () => {
    expect(() => pools({ DISPATCHER_POOLS: 'ledger' }, [pkg('a'), pkg('b', 'ledger')])).toThrow(/a is in pool "shared", which DISPATCHER_POOLS \(ledger\) does not name/);
    expect(() => pools({ DISPATCHER_POOLS: 'shared,mail' }, [pkg('a')])).toThrow(ConfigError);
    expect(() => pools({ DISPATCHER_POOLS: 'shared,mail' }, [pkg('a')])).toThrow(/pool "mail" has no tool package/);
  });

  it('refuses a pool name that is not one, and a pool named twice', () => {
    expect(() => loadDispatcherConfig({ ...base, DISPATCHER_POOLS: 'Ledger' })).toThrow(/DISPATCHER_POOLS/);
    expect(() => loadDispatcherConfig({ ...base, DISPATCHER_POOLS: 'a,a' })).toThrow(/names a pool twice/);
  });
});
