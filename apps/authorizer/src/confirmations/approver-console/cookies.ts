/**
 * The console's session cookie (ADR 0037): HttpOnly, SameSite=Strict. Where it is Secure it is
 * `__Host-` prefixed, so the browser refuses it unless it was set by this host over a secure
 * connection with `Path=/` and no Domain: a sibling subdomain cannot plant or shadow it. The
 * prefix demands `Path=/`, so the cookie reaches every path; only the console's routes read it
 * (ConsoleSessionGuard checks the path). On a developer's plain-http machine it stays unprefixed
 * and names no Path: the browser scopes it to the console's own directory as it reached it, so
 * under a proxy's path prefix too (ADR 0069).
 */
export const CONSOLE_PATH = '/console';
export const sessionCookieName = (secure: boolean) => (secure ? '__Host-arvis_console' : 'arvis_console');

/** One cookie's value from a Cookie header, or null; a value not matching `pattern` is null. */
export function cookieValue(header: string | undefined, name: string, pattern = /^[A-Za-z0-9_-]{1,200}$/): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return pattern.test(value) ? value : null;
  }
  return null;
}

/**
 * Set-Cookie for a session that ends at `expiresAt` (Max-Age, so a browser drops it then too);
 * `value: null` clears it.
 */
export function sessionCookie(value: string | null, opts: { secure: boolean; expiresAt?: Date; now?: Date }): string {
  const maxAge = value === null ? 0 : Math.max(0, Math.floor(((opts.expiresAt?.getTime() ?? 0) - (opts.now ?? new Date()).getTime()) / 1000));
  const attrs = [`${sessionCookieName(opts.secure)}=${value ?? ''}`, ...(opts.secure ? ['Path=/'] : []), `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict'];
  if (opts.secure) attrs.push('Secure');
  return attrs.join('; ');
}
