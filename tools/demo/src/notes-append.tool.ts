import { z } from 'zod';
import { defineTool } from '@arvis/tool-sdk';
import { noteWriterFor } from './note-writer';

/** notes.append: sovereign, low risk; its effect is one row in `notes`, on the tools' own pool. */
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
  async execute({ input, effectContext, idempotencyKey, capabilityId, db }) {
    const noteId = await noteWriterFor(db).insert({ capabilityId, idempotencyKey, tenant: effectContext.tenant, principal: effectContext.principal, text: input.text });
    return { noteId };
  },
});
