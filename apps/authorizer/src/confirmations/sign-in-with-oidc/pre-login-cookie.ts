import { cookieValue } from '../approver-console/cookies';

/** What the callback must match: which issuer, the state, the nonce and the PKCE verifier (ADR 0071). */
export interface PreLogin {
  issuer: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Long enough to sign in at the provider (a password, a second factor), short enough to go stale. */
export const PRE_LOGIN_MAX_AGE_S = 600;

export const preLoginCookieName = (secure: boolean) => (secure ? '__Host-arvis_console_login' : 'arvis_console_login');

const B64URL = /^[A-Za-z0-9_-]{16,512}$/;

/**
 * SameSite=Lax, unlike the session's Strict: the callback is a top-level navigation from the
 * provider's site, and Lax is what lets the browser send the cookie with it, and with nothing
 * cross-site but such a GET. HttpOnly, and `__Host-` prefixed where Secure (see cookies.ts).
 * Without Secure it names no Path: the browser scopes it to `…/console/oidc/`, where it was set.
 */
export function preLoginCookie(value: PreLogin | null, secure: boolean): string {
  const encoded = value === null ? '' : [Buffer.from(value.issuer).toString('base64url'), value.state, value.nonce, value.codeVerifier].join('.');
  const attrs = [`${preLoginCookieName(secure)}=${encoded}`, ...(secure ? ['Path=/'] : []), `Max-Age=${value === null ? 0 : PRE_LOGIN_MAX_AGE_S}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}

/** The pre-login a Cookie header carries, or null (none, or not one this console set). */
export function preLoginOf(header: string | undefined, secure: boolean): PreLogin | null {
  const value = cookieValue(header, preLoginCookieName(secure), /^[A-Za-z0-9_.-]{1,2200}$/);
  const parts = value?.split('.') ?? [];
  if (parts.length !== 4 || !parts.every((p) => B64URL.test(p))) return null;
  const [issuer, state, nonce, codeVerifier] = parts;
  return { issuer: Buffer.from(issuer, 'base64url').toString('utf8'), state, nonce, codeVerifier };
}
