import { trustProxyEnv } from './trust-proxy';

describe('TRUST_PROXY', () => {
  const parse = (v: string | undefined) => trustProxyEnv.safeParse(v);
  it('takes no proxy, a number of hops, or the proxies by address and subnet', () => {
    expect([parse('false').data, parse('2').data, parse('loopback, 10.0.0.0/8,::1').data, parse(undefined).data, parse('').data]).toEqual([
      false,
      2,
      ['loopback', '10.0.0.0/8', '::1'],
      undefined,
      undefined,
    ]);
  });

  it('refuses true (any caller could name its own rate-limit key) and anything it cannot read', () => {
    for (const v of ['true', '0', '11', 'proxy.example', '10.0.0.0/33', '1.2.3']) expect([v, parse(v).success]).toEqual([v, false]);
  });
});
