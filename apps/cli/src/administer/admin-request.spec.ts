import { adminRequestOf, AdminUsage } from './admin-request';

describe('an admin command line as an admin API request', () => {
  it('maps each action to its endpoint and body', () => {
    expect(adminRequestOf('revoke-session', [], { sessionId: 's-1', note: 'lost phone' })).toEqual({
      method: 'POST',
      path: '/admin/sessions/revoke',
      body: { sessionId: 's-1', note: 'lost phone' },
    });
    expect(adminRequestOf('end-console-sessions', ['https://idp.example', 'carol'], { note: 'left' })).toEqual({
      method: 'POST',
      path: '/admin/console-sessions/end',
      body: { issuer: 'https://idp.example', principal: 'carol', note: 'left' },
    });
    expect(adminRequestOf('end-console-sessions', ['https://idp.example'], {}).body).toEqual({ issuer: 'https://idp.example' });
    expect(adminRequestOf('withdraw-consent', ['acme', 'alice', 'mail'], {})).toEqual({
      method: 'POST',
      path: '/admin/consents/withdraw',
      body: { tenant: 'acme', principal: 'alice', consentKey: 'mail' },
    });
    expect(adminRequestOf('deny-egress', ['acme', 'smtp'], {}).body).toEqual({ tenant: 'acme', provider: 'smtp', allowed: false });
    expect(adminRequestOf('resolve-effect', ['d/1'], { outcome: 'not-happened', note: 'bank says no' })).toEqual({
      method: 'POST',
      path: '/admin/effects/d%2F1/resolve',
      body: { outcome: 'not_happened', note: 'bank says no' },
    });
    expect(adminRequestOf('redrive-dead-letter', ['decisions', '3', '42'], {}).body).toEqual({ dlq: 'decisions', partition: 3, offset: '42' });
    expect(adminRequestOf('discard-quarantined', ['17'], { note: 'stale' }).path).toBe('/admin/outbox/17/discard');
    expect(adminRequestOf('store', [], {})).toEqual({ method: 'GET', path: '/admin/store' });
    expect(adminRequestOf('rebind-store', ['a'.repeat(64)], { note: 'restore of 2 Dec' }).body).toEqual({ fromFingerprint: 'a'.repeat(64), note: 'restore of 2 Dec' });
    expect(adminRequestOf('reconcile-rollback', [], { note: 'restore of 2 Dec' })).toEqual({ method: 'POST', path: '/admin/store/reconcile-rollback', body: { note: 'restore of 2 Dec' } });
  });

  it.each([
    ['an unknown action', 'drop-table', [], {}],
    ['a revocation naming no session', 'revoke-session', [], {}],
    ['a revocation naming two', 'revoke-session', [], { sessionId: 's', sessionHash: 'h' }],
    ['a console-session end naming no issuer', 'end-console-sessions', [], {}],
    ['a console-session end naming too much', 'end-console-sessions', ['i', 'p', 'x'], {}],
    ['a consent missing its key', 'grant-consent', ['acme', 'alice'], {}],
    ['a resolution without a note', 'resolve-effect', ['d-1'], { outcome: 'completed' }],
    ['a resolution with another outcome', 'resolve-effect', ['d-1'], { outcome: 'failed', note: 'x' }],
    ['a dead letter of another DLQ', 'redrive-dead-letter', ['journal', '0', '1'], {}],
    ['a dead letter at a negative offset', 'discard-dead-letter', ['intents', '0', '-1'], {}],
    ['a quarantined row by name', 'release-quarantined', ['latest'], {}],
    ['a rebind without a note', 'rebind-store', ['a'.repeat(64)], {}],
    ['a reconcile without a note', 'reconcile-rollback', [], {}],
  ])('refuses %s', (_what, action, rest, options) => {
    expect(() => adminRequestOf(action, rest, options)).toThrow(AdminUsage);
  });
});
