import { z } from 'zod';
import { defineTool } from './tool-spec';
import { ToolCatalog } from './tool-catalog';

/** notes.append: sovereign, low risk; its effect is a row in the notes table. */
export const notesAppend = defineTool({
  name: 'notes.append',
  description: 'Appends a note for the calling principal',
  input: z.strictObject({ text: z.string().min(1).max(2000), ref: z.string().max(200).optional() }),
  output: z.strictObject({ noteId: z.string() }),
  idempotent: false,
  retryable: true,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 0.5,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'user_content', requiredConsent: null },
});

/**
 * flaky.record: fails its first `failTimes` calls for one logical action, then records one effect
 * keyed by the idempotency key. Idempotent and retryable: what retry governance is for.
 */
export const flakyRecord = defineTool({
  name: 'flaky.record',
  description: 'Fails a configured number of times, then records one effect per idempotency key',
  input: z.strictObject({ key: z.string().min(1).max(200), failTimes: z.number().int().min(0).max(5) }),
  output: z.strictObject({ effectId: z.string(), calls: z.number().int() }),
  idempotent: true,
  retryable: true,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
});

/** mail.send: connected egress through a provider, needs the principal's "email" consent. */
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
});

/** ledger.transfer: irreversible, needs a human confirmation, deduplicates by idempotency key. */
export const ledgerTransfer = defineTool({
  name: 'ledger.transfer',
  description: 'Moves money between two accounts of the tenant',
  input: z.strictObject({
    from: z.string().min(1).max(64),
    to: z.string().min(1).max(64),
    amountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3}$/),
    reference: z.string().min(1).max(200),
  }),
  output: z.strictObject({ transferId: z.string(), deduplicated: z.boolean() }),
  idempotent: true,
  retryable: false,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 0.8,
  requiresConfirmation: true,
  auditRequired: true,
  reversible: false,
  manifest: { provider: null, dataEgress: false, dataClass: 'financial', requiredConsent: null },
});

export const demoCatalog = (): ToolCatalog => new ToolCatalog([notesAppend, flakyRecord, mailSend, ledgerTransfer]);

/**
 * The demo catalog plus one more tool: another fingerprint, as during a rolling deploy where the
 * authorizer already knows a tool the dispatchers do not (fault point authorizerCatalogSkew).
 */
export const skewedDemoCatalog = (): ToolCatalog =>
  new ToolCatalog([
    notesAppend,
    flakyRecord,
    mailSend,
    ledgerTransfer,
    defineTool({ ...notesAppend, name: 'notes.archive', description: 'Not yet deployed to the dispatchers' }),
  ]);
