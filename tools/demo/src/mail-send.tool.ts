import { z } from 'zod';
import { defineTool } from '@arvis/tool-sdk';
import { rowWriterFor, type EffectTable } from './row-writer';

type MailRow = { capabilityId: string; idempotencyKey: string; tenant: string; recipient: string; subject: string; body: string };
const MAIL_SINK: EffectTable<MailRow> = {
  name: 'mail_sink',
  columns: { capability_id: 'capabilityId', idempotency_key: 'idempotencyKey', tenant: 'tenant', recipient: 'recipient', subject: 'subject', body: 'body' },
};

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
    // Bodies started together share one statement (one commit for the group), as notes.append's do.
    const id = await rowWriterFor(db, MAIL_SINK).insert({ capabilityId, idempotencyKey, tenant: effectContext.tenant, recipient: input.to, subject: input.subject, body: input.body });
    return { messageId: `mail-${id}` };
  },
});
