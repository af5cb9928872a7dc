import { z } from 'zod';
import { defineTool } from '@arvis/tool-sdk';
import { rowWriterFor, type EffectTable } from './row-writer';

type NoteRow = { capabilityId: string; idempotencyKey: string; tenant: string; principal: string; text: string };
const NOTES: EffectTable<NoteRow> = {
  name: 'notes',
  columns: { capability_id: 'capabilityId', idempotency_key: 'idempotencyKey', tenant: 'tenant', principal: 'principal', text: 'text' },
};

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
    const noteId = await rowWriterFor(db, NOTES).insert({ capabilityId, idempotencyKey, tenant: effectContext.tenant, principal: effectContext.principal, text: input.text });
    return { noteId };
  },
  /**
   * Asked only for a body that began (recovery fences the others, ADR 0056). Its note is one row
   * keyed by the idempotency key and the capability: there, it completed; not there, the body may
   * still be about to write it (a paused dispatcher), so it cannot tell.
   */
  async reconcile({ idempotencyKey, capabilityId, db }) {
    const { rows } = await db.query<{ id: string }>('SELECT id::text FROM notes WHERE capability_id = $1 AND idempotency_key = $2', [capabilityId, idempotencyKey]);
    return rows[0] ? { found: 'completed', output: { noteId: rows[0].id } } : { found: 'cannot_tell' };
  },
});
