import { z } from 'zod';
import { Identifier } from './primitives';

// Present only on decisions the system creates itself (docs/architecture.md, step 13); never accepted from outside.
export const RetryInfo = z.strictObject({
  attempt: z.number().int().min(1),
  chainId: Identifier,
  parentCausalId: Identifier,
});
export type RetryInfo = z.infer<typeof RetryInfo>;
