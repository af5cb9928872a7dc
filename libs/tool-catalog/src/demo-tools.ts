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

export const demoCatalog = (): ToolCatalog => new ToolCatalog([notesAppend, flakyRecord]);

/**
 * The demo catalog plus one more tool: another fingerprint, as during a rolling deploy where the
 * authorizer already knows a tool the dispatchers do not (fault point authorizerCatalogSkew).
 */
export const skewedDemoCatalog = (): ToolCatalog =>
  new ToolCatalog([
    notesAppend,
    flakyRecord,
    defineTool({ ...notesAppend, name: 'notes.archive', description: 'Not yet deployed to the dispatchers' }),
  ]);
