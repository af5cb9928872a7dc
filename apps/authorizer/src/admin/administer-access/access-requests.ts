import { z } from 'zod';
import { Identifier, Sha256Hex } from '@arvis/contracts';
import { sha256Hex } from '@arvis/crypto';

const Note = z.string().max(2000).optional();

/**
 * A session to revoke: the token's `sid` itself, or its SHA-256 (what `revoked_sessions` and the
 * effect context keep, so an operator who only has the hash can still revoke it). Exactly one.
 */
export const RevokeSessionBody = z
  .strictObject({ sessionId: z.string().min(1).max(1000).optional(), sessionIdHash: Sha256Hex.optional(), note: Note })
  .refine((b) => (b.sessionId === undefined) !== (b.sessionIdHash === undefined), 'give exactly one of sessionId or sessionIdHash');
export type RevokeSessionBody = z.infer<typeof RevokeSessionBody>;

/** The hash admission looks up; the journal names the hash, never the session id itself. */
export const sessionHashOf = (b: RevokeSessionBody): string => b.sessionIdHash ?? sha256Hex(b.sessionId!);

/** A consent: one row of `consent_grants`. */
export const ConsentBody = z.strictObject({ tenant: Identifier, principal: Identifier, consentKey: Identifier, note: Note });
export type ConsentBody = z.infer<typeof ConsentBody>;

/** A tenant's egress to one provider, allowed (a row of `egress_policies`) or not (no row). */
export const EgressBody = z.strictObject({ tenant: Identifier, provider: Identifier, allowed: z.boolean(), note: Note });
export type EgressBody = z.infer<typeof EgressBody>;

/** The journal's target of a consent or an egress act: its key, slash-separated. */
export const consentTarget = (b: ConsentBody): string => `${b.tenant}/${b.principal}/${b.consentKey}`;
export const egressTarget = (b: EgressBody): string => `${b.tenant}/${b.provider}`;

/** Console sessions to end (ADR 0037): the operator's tenant's sessions opened through `issuer`, or only `principal`'s. */
export const EndConsoleSessionsBody = z.strictObject({ issuer: z.string().min(1).max(300), principal: Identifier.optional(), note: Note });
export type EndConsoleSessionsBody = z.infer<typeof EndConsoleSessionsBody>;
export const consoleSessionsTarget = (tenant: string, b: EndConsoleSessionsBody): string => [tenant, b.issuer, ...(b.principal ? [b.principal] : [])].join('/');
