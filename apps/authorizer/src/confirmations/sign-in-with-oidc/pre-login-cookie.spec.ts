import { preLoginCookie, preLoginOf } from './pre-login-cookie';

const login = { issuer: 'https://idp.example/realms/acme', state: 's'.repeat(43), nonce: 'n'.repeat(43), codeVerifier: 'v'.repeat(43) };

describe('the pre-login cookie', () => {
  it('is short, HttpOnly, SameSite=Lax and __Host- prefixed where Secure', () => {
    expect(preLoginCookie(login, true)).toMatch(/^__Host-arvis_console_login=[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    expect(preLoginCookie(login, false)).toMatch(/^arvis_console_login=[^;]+; Max-Age=600; HttpOnly; SameSite=Lax$/);
    expect(preLoginCookie(null, true)).toBe('__Host-arvis_console_login=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
  });

  it('reads back what it wrote, and nothing else', () => {
    const header = (secure: boolean) => `other=1; ${preLoginCookie(login, secure).split(';')[0]}`;
    expect(preLoginOf(header(true), true)).toEqual(login);
    expect(preLoginOf(header(false), false)).toEqual(login);
    expect(preLoginOf(header(false), true)).toBeNull();
    expect(preLoginOf('arvis_console_login=a.b.c', false)).toBeNull();
    expect(preLoginOf('arvis_console_login=', false)).toBeNull();
    expect(preLoginOf(undefined, false)).toBeNull();
  });
});
