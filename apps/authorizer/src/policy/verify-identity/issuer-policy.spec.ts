import { claimAt, evaluateIssuerPolicy, type IssuerPolicy, type TokenUse } from './issuer-policy';

const now = new Date('2026-11-30T12:00:00Z');
const nowS = now.getTime() / 1000;
const defaults: IssuerPolicy = { tenants: ['*'], claims: { subject: 'sub', tenant: 'tenant', roles: 'roles', service: 'azp' } };
const payload = { sub: 'alice', tenant: 'acme', azp: 'agent-1', roles: ['approver', 7], iat: nowS - 60 };
const judge = (policy: Partial<IssuerPolicy>, claims: Record<string, unknown> = payload, typ: string | undefined = 'JWT', use: TokenUse = 'decision') =>
  evaluateIssuerPolicy({ ...defaults, ...policy }, { header: typ === undefined ? {} : { typ }, payload: claims }, { use, now, clockSkewS: 30 });

describe('an issuer policy judging a verified token', () => {
  it('maps today\'s token shape with the defaults and no other rule', () => {
    expect(judge({}, { sub: 'alice', tenant: 'acme', azp: 'agent-1', roles: 'approver' }, undefined)).toEqual({
      ok: true,
      claims: { principal: 'alice', tenant: 'acme', serviceId: 'agent-1', roles: [], person: null },
    });
    expect(judge({})).toMatchObject({ ok: true, claims: { roles: ['approver'] } });
  });

  it('requires the audience of the use: decisions and approvals apart', () => {
    const audience = { decisions: ['arvis-decisions'], approvals: ['arvis-approvals'] };
    expect(judge({ audience }, { ...payload, aud: 'arvis-decisions' })).toMatchObject({ ok: true });
    expect(judge({ audience }, { ...payload, aud: ['other', 'arvis-approvals'] }, 'JWT', 'approval')).toMatchObject({ ok: true });
    expect(judge({ audience }, { ...payload, aud: 'arvis-approvals' })).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    expect(judge({ audience }, { ...payload, aud: 'arvis-decisions' }, 'JWT', 'approval')).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    expect(judge({ audience }, payload)).toMatchObject({ ok: false, rule: 'audience_mismatch', detail: expect.stringMatching(/^audience_mismatch: decision tokens need aud/) });
    // Only the use configured is checked.
    expect(judge({ audience: { approvals: ['arvis-approvals'] } }, { ...payload, aud: 'anything' })).toMatchObject({ ok: true });
  });

  it('requires an admin token to carry the issuer\'s admin audience, and refuses every admin token of an issuer with audiences but none for admin', () => {
    const audience = { decisions: ['arvis-decisions'], approvals: ['arvis-approvals'], admin: ['arvis-admin'] };
    expect(judge({ audience }, { ...payload, aud: 'arvis-admin' }, 'JWT', 'admin')).toMatchObject({ ok: true });
    expect(judge({ audience }, { ...payload, aud: 'arvis-approvals' }, 'JWT', 'admin')).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    expect(judge({ audience }, { ...payload, aud: 'arvis-admin' }, 'JWT', 'approval')).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    const noAdmin = { decisions: ['arvis-decisions'], approvals: ['arvis-approvals'] };
    for (const aud of ['arvis-decisions', 'arvis-approvals', 'arvis-admin']) {
      expect(judge({ audience: noAdmin }, { ...payload, aud }, 'JWT', 'admin')).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    }
    // An issuer without any audience rule checks none, for admin tokens too, outside production.
    expect(judge({}, payload, 'JWT', 'admin')).toMatchObject({ ok: true });
  });

  it('in production, refuses every admin token of an issuer without an admin audience, even one that sets no audiences', () => {
    const production = { adminAudienceRequired: true };
    expect(judge(production, { ...payload, aud: 'anything' }, 'JWT', 'admin')).toMatchObject({
      ok: false,
      rule: 'audience_mismatch',
      detail: expect.stringContaining("admin tokens need the issuer's audience.admin (required in production)"),
    });
    expect(judge(production, payload, 'JWT', 'admin')).toMatchObject({ ok: false, rule: 'audience_mismatch' });
    expect(judge({ ...production, audience: { admin: ['arvis-admin'] } }, { ...payload, aud: 'arvis-admin' }, 'JWT', 'admin')).toMatchObject({ ok: true });
    // Decisions and approvals are judged as before.
    expect(judge(production, payload)).toMatchObject({ ok: true });
    expect(judge(production, payload, 'JWT', 'approval')).toMatchObject({ ok: true });
  });

  it('accepts only the listed typ values, as media types', () => {
    const tokenTypes = ['at+jwt'];
    expect(judge({ tokenTypes }, payload, 'application/AT+JWT')).toMatchObject({ ok: true });
    expect(judge({ tokenTypes }, payload, 'JWT')).toMatchObject({ ok: false, rule: 'token_type_not_accepted' });
    expect(judge({ tokenTypes }, payload, undefined)).toMatchObject({ ok: false, rule: 'token_type_not_accepted' });
  });

  it('refuses a token older than the maximum age (with the clock skew), and one without iat', () => {
    expect(judge({ maxTokenAgeS: 300 }, { ...payload, iat: nowS - 330 })).toMatchObject({ ok: true });
    expect(judge({ maxTokenAgeS: 300 }, { ...payload, iat: nowS - 331 })).toMatchObject({ ok: false, rule: 'token_too_old', detail: 'token_too_old: issued 331 s ago, the issuer allows 300 s' });
    const { iat: _iat, ...noIat } = payload;
    expect(judge({ maxTokenAgeS: 300 }, noIat)).toMatchObject({ ok: false, rule: 'issued_at_missing' });
    expect(judge({}, noIat)).toMatchObject({ ok: true });
  });

  it('lets the issuer speak only for its tenants; "*" for any', () => {
    expect(judge({ tenants: ['acme', 'globex'] })).toMatchObject({ ok: true });
    expect(judge({ tenants: ['globex'] })).toMatchObject({ ok: false, rule: 'tenant_not_allowed', detail: 'tenant_not_allowed: the issuer may not speak for tenant "acme"' });
  });

  it('maps claims by name or nested path, as common providers put them', () => {
    // Keycloak: realm roles nested; Auth0: namespaced claim names holding dots.
    const keycloak = { sub: 'u-1', azp: 'agent', tenant: 'acme', realm_access: { roles: ['approver'] } };
    expect(judge({ claims: { ...defaults.claims, roles: ['realm_access', 'roles'] } }, keycloak)).toMatchObject({ ok: true, claims: { roles: ['approver'] } });
    const auth0 = { sub: 'auth0|1', azp: 'cid', 'https://arvis.example/tenant': 'acme' };
    const mapped = { ...defaults.claims, tenant: 'https://arvis.example/tenant' };
    expect(judge({ claims: mapped }, auth0)).toMatchObject({ ok: true, claims: { principal: 'auth0|1', tenant: 'acme' } });
    expect(judge({}, auth0)).toMatchObject({ ok: false, rule: 'claims_missing', detail: 'claims_missing: token lacks sub, tenant, azp (subject, tenant or service)' });
    expect(claimAt({ a: { b: ['x'] } }, ['a', 'b', 'c'])).toBeUndefined();
  });

  it('checks the tenant after mapping it', () => {
    const entra = { sub: 'pairwise', oid: 'o-1', tid: 'tid-1', azp: 'app', roles: [] };
    const claims = { subject: 'oid', tenant: 'tid', roles: 'roles', service: 'azp' };
    expect(judge({ claims, tenants: ['tid-1'] }, entra)).toMatchObject({ ok: true, claims: { principal: 'o-1', tenant: 'tid-1' } });
    expect(judge({ claims, tenants: ['tid-2'] }, entra)).toMatchObject({ ok: false, rule: 'tenant_not_allowed' });
  });

  it('maps the cross-issuer person key only where the issuer says which claim holds it', () => {
    const token = { ...payload, email: 'alice@acme.example' };
    expect(judge({}, token)).toMatchObject({ ok: true, claims: { person: null } });
    expect(judge({ claims: { ...defaults.claims, person: 'email' } }, token)).toMatchObject({ ok: true, claims: { person: 'alice@acme.example' } });
    expect(judge({ claims: { ...defaults.claims, person: 'email' } })).toMatchObject({ ok: true, claims: { person: null } });
  });
});
