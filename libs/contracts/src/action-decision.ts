import { z } from 'zod';
import { Identifier } from './primitives';
import { SPEC_VERSION } from './reason-codes';
import { RetryInfo } from './retry-info';

// Shape only (header.payload.signature, base64url); the authorizer verifies the token itself.
// A non-empty third segment refuses unsigned `alg: none` tokens before any crypto runs.
const JwtShape = z
  .string()
  .min(1)
  .max(16384)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'expected a compact JWT (three base64url segments)');

// Strict: an unknown field (notably `retry`) is refused rather than dropped, so a client
// cannot smuggle system-only fields in.
/** Ids the system derives (retries) start with this; a decision from outside may not. */
export const SYSTEM_ID_PREFIX = 'arvis.';
/**
 * The run every operator act that is about no decision is journaled under (ADR 0036): `cli run
 * arvis.operator` lists them. Here, not in libs/journal, so a reader (the CLI) needs no journal writer.
 */
export const OPERATOR_RUN_ID = `${SYSTEM_ID_PREFIX}operator`;

export const ActionDecisionSchema = z.strictObject({
  specVersion: z.literal(SPEC_VERSION),
  decisionId: Identifier.refine((id) => !id.startsWith(SYSTEM_ID_PREFIX), `the prefix "${SYSTEM_ID_PREFIX}" is reserved for decisions the system creates`),
  runId: Identifier,
  causalId: Identifier,
  tool: Identifier,
  payload: z.record(z.string(), z.unknown()),
  riskScore: z.number().min(0).max(1),
  identity: JwtShape,
  processId: Identifier.default('default'),
  confirmationId: Identifier.optional(),
});
export type ActionDecision = z.infer<typeof ActionDecisionSchema>;
export type ActionDecisionInput = z.input<typeof ActionDecisionSchema>;

export const InternalRetryDecisionSchema = ActionDecisionSchema.extend({
  decisionId: Identifier,
  retry: RetryInfo,
});
export type InternalRetryDecision = z.infer<typeof InternalRetryDecisionSchema>;
