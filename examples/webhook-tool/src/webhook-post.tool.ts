import { z } from 'zod';
import { defineTool, type Reconciliation, type ToolDatabase } from '@arvis/tool-sdk';
import { webhookSettings } from './config';

const Output = z.strictObject({ deliveryId: z.string().min(1), httpStatus: z.number().int() });
type Output = z.infer<typeof Output>;
const Receipt = z.object({ deliveryId: z.string().min(1) });

interface DeliveryRow {
  state: 'sending' | 'delivered';
  delivery_id: string | null;
  http_status: number | null;
}

const deliveryOf = async (db: ToolDatabase, key: string): Promise<DeliveryRow | undefined> =>
  (await db.query<DeliveryRow>('SELECT state, delivery_id, http_status FROM webhook_deliveries WHERE idempotency_key = $1', [key])).rows[0];

async function markDelivered(db: ToolDatabase, key: string, out: Output): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET state = 'delivered', delivery_id = $2, http_status = $3, delivered_at = now()
     WHERE idempotency_key = $1`,
    [key, out.deliveryId, out.httpStatus],
  );
}

async function post(url: string, key: string, body: unknown, signal: AbortSignal): Promise<Output> {
  const res = await fetch(`${url}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`webhook endpoint answered ${res.status}: ${text.slice(0, 200)}`);
  const receipt = Receipt.parse(JSON.parse(text));
  return { deliveryId: receipt.deliveryId, httpStatus: res.status };
}

/** The endpoint's own record of a key: it is the only party that knows whether a POST landed. */
async function askEndpoint(key: string): Promise<Reconciliation<Output>> {
  const { url, timeoutMs } = webhookSettings();
  try {
    const res = await fetch(`${url}/deliveries/${encodeURIComponent(key)}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 404) return { found: 'none' };
    if (!res.ok) return { found: 'cannot_tell' };
    return { found: 'completed', output: { deliveryId: Receipt.parse(await res.json()).deliveryId, httpStatus: 200 } };
  } catch {
    return { found: 'cannot_tell' };
  }
}

/**
 * webhook.post: delivers an event to the tenant's webhook endpoint. It crosses a trust boundary
 * (provider "acme-webhooks", data leaves), needs the principal's "webhook" consent, and honours
 * the idempotency key twice over: its own table answers a repeated key without a second POST,
 * and the endpoint is sent the key so that it, too, delivers each key once.
 */
export const webhookPost = defineTool({
  name: 'webhook.post',
  description: 'Posts an event to the tenant webhook endpoint, once per idempotency key',
  input: z.strictObject({
    event: z.string().min(1).max(100),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  }),
  output: Output,
  idempotent: true,
  retryable: true,
  sideEffectful: true,
  timeoutMs: 10_000,
  maxRisk: 0.5,
  requiresConfirmation: false,
  auditRequired: true,
  reversible: false,
  manifest: { provider: 'acme-webhooks', dataEgress: true, dataClass: 'internal', requiredConsent: 'webhook' },
  async execute({ input, idempotencyKey, capabilityId, decisionId, effectContext, signal, db }) {
    const { url, timeoutMs } = webhookSettings();
    const known = await deliveryOf(db, idempotencyKey);
    if (known?.state === 'delivered') return { deliveryId: known.delivery_id!, httpStatus: known.http_status! };
    await db.query(
      `INSERT INTO webhook_deliveries (idempotency_key, capability_id, url, state) VALUES ($1, $2, $3, 'sending')
       ON CONFLICT (idempotency_key) DO NOTHING`,
      [idempotencyKey, capabilityId, url],
    );
    const body = { event: input.event, data: input.data, decisionId, tenant: effectContext.tenant, runId: effectContext.runId };
    const out = await post(url, idempotencyKey, body, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
    await markDelivered(db, idempotencyKey, out);
    return out;
  },
  /** Asked after a dispatcher died mid-call: our table if it got that far, else the endpoint. */
  async reconcile({ idempotencyKey, db }) {
    const known = await deliveryOf(db, idempotencyKey);
    if (known?.state === 'delivered') return { found: 'completed', output: { deliveryId: known.delivery_id!, httpStatus: known.http_status! } };
    const answer = await askEndpoint(idempotencyKey);
    if (answer.found === 'completed') await markDelivered(db, idempotencyKey, answer.output);
    return answer;
  },
});
