import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** The management surface: health and metrics, served on the management port only. */
export const isManagementPath = (path: string) => /^\/(health\/|metrics(\/|\?|$))/.test(path);

/**
 * Splits one Nest application across two listeners: health and metrics only on the management
 * port, everything else only on the API port. A service without an API listens on the management
 * port alone, which then answers nothing but health and metrics.
 */
export function portGate(managementPort: number) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const onManagement = req.socket.localPort === managementPort;
    if (onManagement === isManagementPath(req.url ?? '/')) return next();
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
