/** The console's session cookie: HttpOnly, SameSite=Strict, scoped to /console (ADR 0037). */
export const SESSION_COOKIE = 'arvis_console';
export const COOKIE_PATH = '/console';

/** One cookie's value from a Cookie header, or null; malformed pairs are skipped. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
  }
  return null;
}

/**
 * Set-Cookie for a session that ends at `expiresAt` (Max-Age, so a browser drops it then too);
 * `value: null` clears it. Secure everywhere but a developer's plain-http machine.
 */
export function sessionCookie(value: string | null, opts: { secure: boolean; expiresAt?: Date; now?: Date }): string {
  const maxAge = value === null ? 0 : Math.max(0, Math.floor(((opts.expiresAt?.getTime() ?? 0) - (opts.now ?? new Date()).getTime()) / 1000));
  const attrs = [`${SESSION_COOKIE}=${value ?? ''}`, `Path=${COOKIE_PATH}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict'];
  if (opts.secure) attrs.push('Secure');
  return attrs.join('; ');
}
