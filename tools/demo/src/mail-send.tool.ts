import { z } from 'zod';
import { defineTool } from '@arvis/tool-sdk';

/**
 * mail.send: connected egress through a provider, needs the principal's "email" consent. Here it
 * "delivers" to the mail_sink table, as a relay would deliver to an inbox.
 */
export const mailSend = defineTool({
  name: 'mail.send',
  description: 'Sends an e-mail through the tenant mail relay (here: a local sink table)',
  input: z.strictObject({ to: z.email(), subject: z.string().min(1).max(200), body: z.string().max(10000) }),
  output: z.strictObject({ messageId: z.string() }),
  idempotent: false,
  retryable: false,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 0.5,
  requiresConfirmation: false,
  auditRequired: true,
  reversible: false,
  manifest: { provider: 'smtp-relay', dataEgress: true, dataClass: 'personal', requiredConsent: 'email' },
  async execute({ input, effectContext, idempotencyKey, capabilityId, db }) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO mail_sink (capability_id, idempotency_key, tenant, recipient, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`,
      [capabilityId, idempotencyKey, effectContext.tenant, input.to, input.subject, input.body],
    );
    return { messageId: `mail-${rows[0].id}` };
  },
});
