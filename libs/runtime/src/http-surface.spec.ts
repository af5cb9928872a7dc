import { Controller } from '@nestjs/common';
import { isApiPath, isManagementPath, routePrefixes } from './http-surface';

describe('the management surface', () => {
  it('is health and metrics, nothing else, in exact letter case', () => {
    expect(['/health/live', '/health/ready', '/metrics', '/metrics?x=1'].map(isManagementPath)).toEqual([true, true, true, true]);
    expect(['/confirmations', '/console', '/metricsx', '/healthz', '/', '/health/other'].map(isManagementPath)).toEqual([false, false, false, false, false, false]);
    expect(['/METRICS', '/Metrics', '/Health/ready', '/HEALTH/LIVE', '/metrics/', '//metrics'].map(isManagementPath)).toEqual([false, false, false, false, false, false]);
  });
});

describe('the API surface', () => {
  const routes = ['/confirmations', '/console', '/admin'];
  it('is the route prefixes, whole segments, exact letter case', () => {
    expect(['/confirmations', '/confirmations?x=1', '/console/session', '/admin/effects/d1/resolve'].map((p) => isApiPath(p, routes))).toEqual([true, true, true, true]);
    expect(['/metrics', '/health/ready', '/METRICS', '/Confirmations', '/CONSOLE', '/consoles', '/', '/adminx'].map((p) => isApiPath(p, routes))).toEqual(Array(8).fill(false));
  });

  it("reads the prefixes from the controllers' own @Controller paths", () => {
    @Controller('confirmations')
    class A {}
    @Controller('/admin/effects/')
    class B {}
    @Controller()
    class Root {}
    expect(routePrefixes([A, B])).toEqual(['/confirmations', '/admin/effects']);
    expect(() => routePrefixes([Root])).toThrow('Root has no route prefix');
  });
});
