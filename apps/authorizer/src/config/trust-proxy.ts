import { isIP } from 'node:net';
import { z } from 'zod';

/** What Express's `trust proxy` setting gets: no proxy, a number of proxy hops, or the proxies' addresses. */
export type TrustProxy = false | number | string[];

const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address or subnet (`10.0.0.0/8`, `::1`), or one of Express's presets. */
function isProxyAddress(s: string): boolean {
  if (PRESETS.has(s)) return true;
  const [addr, bits, ...rest] = s.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * TRUST_PROXY: which hops in front of the authorizer may say who the client is
 * (X-Forwarded-For). Rate limits key on that client (ADR 0038). `false`: no proxy, the socket's
 * peer is the client; a number: that many proxies; otherwise the proxies' addresses or subnets,
 * comma-separated (`loopback`, `10.0.0.0/8`). `true` is refused: it would let any caller name
 * its own address, and so its own rate-limit key. Unset (undefined) is refused in production
 * where the console's cookie is Secure, since that console sits behind a TLS proxy.
 */
export const trustProxyEnv = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .optional()
    .transform((v, ctx): TrustProxy | undefined => {
      if (v === undefined) return undefined;
      const t = v.trim();
      if (t === 'false') return false;
      if (t === 'true') {
        ctx.addIssue({ code: 'custom', message: 'true would trust any X-Forwarded-For: name the proxies (addresses, subnets) or their number' });
        return z.NEVER;
      }
      if (/^\d+$/.test(t)) {
        const hops = Number(t);
        if (hops >= 1 && hops <= 10) return hops;
      }
      const list = t.split(',').map((s) => s.trim());
      if (list.every(isProxyAddress)) return list;
      ctx.addIssue({ code: 'custom', message: 'false, a number of hops (1-10), or proxy addresses/subnets (comma-separated; loopback, linklocal, uniquelocal)' });
      return z.NEVER;
    }),
);
