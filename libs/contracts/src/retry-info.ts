import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Identifier } from './primitives';

// Present only on decisions the system creates itself (docs/architecture.md, step 13); never accepted from outside.
export const RetryInfo = z.strictObject({
  attempt: z.number().int().min(1),
  chainId: Identifier,
  parentCausalId: Identifier,
});
export type RetryInfo = z.infer<typeof RetryInfo>;

/**
 * The decisionId the system gives attempt `attempt` of a chain: `arvis.retry.`, the first 40 hex
 * characters of SHA-256(chainId) and the attempt. Within 200 characters whatever the chain id, and
 * in a namespace no decision from outside may use. The dispatcher derives the same in SQL.
 */
export function retryDecisionId(chainId: string, attempt: number): string {
  return `arvis.retry.${createHash('sha256').update(chainId, 'utf8').digest('hex').slice(0, 40)}.${attempt}`;
}
