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

export const demoCatalog = (): ToolCatalog => new ToolCatalog([notesAppend]);

/**
 * The demo catalog plus one more tool: another fingerprint, as during a rolling deploy where the
 * authorizer already knows a tool the dispatchers do not (fault point authorizerCatalogSkew).
 */
export const skewedDemoCatalog = (): ToolCatalog =>
  new ToolCatalog([
    notesAppend,
    defineTool({ ...notesAppend, name: 'notes.archive', description: 'Not yet deployed to the dispatchers' }),
  ]);
