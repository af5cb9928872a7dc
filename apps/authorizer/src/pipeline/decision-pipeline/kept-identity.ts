import { sha256Hex } from '@arvis/crypto';
import type { Decision } from '../../policy/authorize-decision/authorization.types';
import { parseStoredIdentity } from '../../policy/verify-identity/stored-identity';
import type { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';
import type { Candidate } from './pipeline.types';

/** A decision's inbox row as the system reads it back to submit it again. */
export interface InboxRow {
  body: string;
  identity_sha256: string | null;
  identity_claims: unknown;
}

/**
 * The decision of an inbox row and the identity kept for it (ADR 0035): the verified claims, or
 * for a row received before the upgrade that still holds its token, that token verified once
 * more (by the application clock; policy then judges its expiry by database time) and dropped.
 * A row with neither (its token was removed at the upgrade) is refused by policy.
 */
export async function keptIdentity(row: InboxRow, verifier: VerifyIdentityService): Promise<Pick<Candidate, 'decision' | 'stored' | 'identity' | 'identitySha256'>> {
  const { identity: token, ...decision } = JSON.parse(row.body) as Decision & { identity?: unknown };
  const stored = parseStoredIdentity(row.identity_claims);
  if (stored) return { decision, stored, identitySha256: stored.tokenSha256 };
  if (typeof token !== 'string') return { decision, identitySha256: row.identity_sha256 };
  return { decision, identity: await verifier.verify(token), identitySha256: sha256Hex(token) };
}
