import { sha256Hex } from '@arvis/crypto';
import { recheckStoredIdentity, restoreIdentity, storeIdentity, type IssuerNow } from './stored-identity';

const now = new Date('2026-12-01T12:00:00Z');
const identity = {
  principal: 'alice', tenant: 'acme', issuer: 'idp', authenticationStrength: 'mfa', serviceId: 'agent-1', sessionId: 's-1',
  roles: ['approver'], person: 'alice@acme.example', expiresAt: new Date(now.getTime() + 60_000), issuedAt: new Date(now.getTime() - 60_000),
};
const stored = storeIdentity(identity, sha256Hex('header.claims.signature'), 'r'.repeat(64));
const issuer: IssuerNow = { rulesSha256: 'r'.repeat(64), parkedDecisions: 'token' };
const at = (ms: number, resumed = false, over: Partial<IssuerNow> = {}, s = stored) =>
  recheckStoredIdentity(s, { ...issuer, ...over }, { now: new Date(now.getTime() + ms), clockSkewS: 30, resumed });

describe('kept identity claims, re-checked without their token', () => {
  it('keep the claims and the token SHA-256, never the token, and give back the same identity', () => {
    expect(JSON.stringify(stored)).not.toContain('header.claims.signature');
    expect(stored.tokenSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(restoreIdentity(JSON.parse(JSON.stringify(stored)) as typeof stored)).toEqual(identity);
  });

  it('judge expiry and maximum age by the given clock, with the skew', () => {
    expect(at(0)).toEqual({ ok: true });
    expect(at(60_000 + 29_000)).toEqual({ ok: true });
    expect(at(60_000 + 30_000)).toEqual({ ok: false, detail: 'token expired' });
    expect(at(0, false, { maxTokenAgeS: 60 })).toEqual({ ok: true });
    expect(at(31_000, false, { maxTokenAgeS: 60 })).toEqual({ ok: false, detail: 'token_too_old: issued 91 s ago, the issuer allows 60 s' });
    expect(at(0, false, { maxTokenAgeS: 600 }, { ...stored, issuedAt: null })).toMatchObject({ ok: false, detail: expect.stringMatching(/^issued_at_missing: /) });
  });

  it('refuse an issuer that is gone or whose entry changed, whatever the clock', () => {
    expect(recheckStoredIdentity(stored, undefined, { now, clockSkewS: 30, resumed: false })).toEqual({ ok: false, detail: 'issuer "idp" is not trusted' });
    expect(at(0, true, { rulesSha256: 'q'.repeat(64), parkedDecisions: 'session' })).toMatchObject({ ok: false, detail: expect.stringMatching(/^issuer_rules_changed: /) });
  });

  it('bind a resumed decision to its session only where the issuer says so and the token had a sid', () => {
    const day = 86_400_000;
    expect(at(day, true, { parkedDecisions: 'session' })).toEqual({ ok: true });
    expect(at(day, false, { parkedDecisions: 'session' })).toEqual({ ok: false, detail: 'token expired' });
    expect(at(day, true)).toEqual({ ok: false, detail: 'token expired' });
    expect(at(day, true, { parkedDecisions: 'session' }, { ...stored, sessionId: null })).toEqual({ ok: false, detail: 'token expired' });
  });
});
