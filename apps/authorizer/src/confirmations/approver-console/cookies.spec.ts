import { cookieValue, sessionCookie } from './cookies';

describe('the console session cookie', () => {
  it('is HttpOnly, SameSite=Strict, __Host- prefixed with Path=/ where Secure, scoped to the path it was set from where not, and lives until the session ends', () => {
    const now = new Date('2026-12-02T10:00:00Z');
    expect(sessionCookie('abc_-1', { secure: true, expiresAt: new Date('2026-12-02T10:15:00Z'), now })).toBe(
      '__Host-arvis_console=abc_-1; Path=/; Max-Age=900; HttpOnly; SameSite=Strict; Secure',
    );
    expect(sessionCookie('abc', { secure: false, expiresAt: new Date('2026-12-02T10:00:30Z'), now })).toBe(
      'arvis_console=abc; Max-Age=30; HttpOnly; SameSite=Strict',
    );
  });

  it('is cleared with an empty value and no lifetime', () => {
    expect(sessionCookie(null, { secure: true })).toBe('__Host-arvis_console=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookie(null, { secure: false })).toBe('arvis_console=; Max-Age=0; HttpOnly; SameSite=Strict');
  });

  it('is read from a Cookie header among others, and nothing malformed is taken', () => {
    expect(cookieValue('a=1; arvis_console=XyZ_-9; b=2', 'arvis_console')).toBe('XyZ_-9');
    expect(cookieValue('arvis_console_other=1', 'arvis_console')).toBeNull();
    expect(cookieValue('arvis_console=a;b', 'arvis_console')).toBe('a');
    expect(cookieValue('arvis_console=<script>', 'arvis_console')).toBeNull();
    expect(cookieValue(undefined, 'arvis_console')).toBeNull();
  });
});
