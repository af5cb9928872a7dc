import { createHmac } from 'node:crypto';

/** What a notification says: ids, tool, tenant, when it expires and a link; never the payload or a token (ADR 0070). */
export interface NotificationBody {
  deliveryId: string;
  event: 'confirmation.parked' | 'confirmation.expiring';
  tenant: string;
  confirmationId: string;
  decisionId: string;
  runId: string;
  tool: string;
  expiresAt: string;
  link: string;
}

/** The link to the console, with the confirmation named in the query (the console's URL may carry a path prefix). */
export function consoleLink(consoleUrl: string, confirmationId: string): string {
  const url = new URL(consoleUrl);
  url.searchParams.set('confirmation', confirmationId);
  return url.toString();
}

/**
 * `Arvis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. A receiver recomputes
 * it over the raw body, compares in constant time, refuses a `t` too far from its clock (a
 * replay) and deduplicates by `Arvis-Delivery` (a delivery may come twice: at least once).
 */
export function signatureOf(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** The wait before attempt n+1 after n failed ones: backoff, doubled each time, at most 5 minutes. */
export function backoffAfter(attempts: number, backoffMs: number): number {
  return Math.min(5 * 60 * 1000, backoffMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}
