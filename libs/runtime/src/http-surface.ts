import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import helmet from 'helmet';

/** The management surface: health and metrics, served on the management port only. */
const MANAGEMENT_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready', '/metrics']);

/** The path of a request URL, without its query; letter case kept (Express's router ignores it, the gate does not). */
const pathOf = (url: string) => url.split('?', 1)[0];

export const isManagementPath = (url: string) => MANAGEMENT_PATHS.has(pathOf(url));

/** Whether a URL lies under one of the API's route prefixes (exact letter case, whole path segments). */
export const isApiPath = (url: string, apiRoutes: readonly string[]) => {
  const path = pathOf(url);
  return apiRoutes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
};

/** The route prefixes of HTTP controllers, read from their `@Controller(path)`: the API port's allow-list, so it cannot drift from the routes. */
export function routePrefixes(controllers: readonly Type<unknown>[]): string[] {
  return controllers.flatMap((c) => {
    const path: unknown = Reflect.getMetadata(PATH_METADATA, c);
    const paths = (Array.isArray(path) ? path : [path]).filter((p): p is string => typeof p === 'string' && p.replace(/^\/+/, '') !== '');
    if (paths.length === 0) throw new Error(`${c.name} has no route prefix: the API port serves only prefixed controllers`);
    return paths.map((p) => `/${p.replace(/^\/+|\/+$/g, '')}`);
  });
}

/**
 * Splits one Nest application across two listeners, each an allow-list: the management port
 * answers health and metrics alone, the API port only its own routes (`apiRoutes`). Both match
 * letter case exactly: Express routes case-insensitively, so `/METRICS` would otherwise reach the
 * metrics handler through the API port. A service without an API listens on the management port
 * alone, which then answers nothing but health and metrics.
 */
export function portGate(managementPort: number, apiRoutes: readonly string[] = []) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const url = req.url ?? '/';
    const allowed = req.socket.localPort === managementPort ? isManagementPath(url) : isApiPath(url, apiRoutes);
    if (allowed) return next();
    res.statusCode = 404;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ statusCode: 404, error: 'not_found' }));
  };
}

/**
 * Security headers on every answer (helmet): a CSP that allows only this origin (the approver
 * console's page, script and style are served by the authorizer itself, no inline code), no
 * framing, no MIME sniffing, no referrer, HSTS for deployments behind TLS.
 */
export const securityHeaders = () =>
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
  });
