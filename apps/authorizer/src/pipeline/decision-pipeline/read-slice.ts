import type { Tx } from '@arvis/persistence';
import type { ConfirmationRow } from '../../policy/authorize-decision/authorization.types';
import { scopedKey } from './pipeline.types';

/** What the slice needs read; an empty list leaves its part out of the statement. */
export interface SliceNeeds {
  /** Decisions that claim a new inbox row (not resumed ones), by their tenant's id (ADR 0061). */
  claiming: { tenant: string; decisionId: string }[];
  /** Tenants of decisions whose tool declares a consent gate, and an egress gate. */
  consentTenants: string[];
  egressTenants: string[];
  /** Confirmations the decisions present. */
  confirmationIds: string[];
  /** Session ids of the decisions' identities: admission looks their hashes up. */
  sessionIds: string[];
  /** Outbox positions to reserve for the intents the slice may record. */
  positions: number;
}

/** Everything the slice reads, as of one statement inside its transaction. */
export interface SliceReads {
  /** The transaction's `now()`: the record's time and the policy's clock. */
  now: Date;
  /** Body hashes of the inbox rows, by `scopedKey(tenant, decisionId)`. */
  inbox: ReadonlyMap<string, string>;
  consent: { tenant: string; principal: string; consentKey: string }[];
  egress: { tenant: string; provider: string }[];
  confirmations: ConfirmationRow[];
  revokedSessions: ReadonlySet<string>;
  positions: bigint[];
}

type Raw = {
  now: Date;
  inbox?: [string, string, string][];
  consent?: [string, string, string][];
  egress?: [string, string][];
  confirmations?: (Omit<ConfirmationRow, 'grantExpiresAt'> & { grantExpiresAt: string | null })[];
  revoked?: string[];
  positions?: bigint[];
};

/**
 * The slice's reads in one statement, first in its transaction (ADR 0049): the inbox rows of its
 * decision ids, the gate data of the tenants whose tools declare a gate, the presented
 * confirmations, the revoked sessions among its own and its outbox positions. Policy and
 * admission then judge against data that no commit can change before the intent is recorded
 * except through this transaction's own view (a withdrawal committed before this statement is
 * seen). Each part is in the text only when the slice needs it, so at most 64 texts are named.
 */
export async function readSlice(tx: Tx, needs: SliceNeeds): Promise<SliceReads> {
  const params: unknown[] = [];
  const param = (v: unknown, type: string) => `$${params.push(v)}::${type}`;
  const parts = ['now() AS now'];
  const agg = (what: string, from: string, as: string) => parts.push(`(SELECT coalesce(json_agg(${what}), '[]'::json) FROM ${from}) AS ${as}`);
  if (needs.claiming.length > 0) {
    const ids = param(needs.claiming.map((c) => c.decisionId), 'text[]');
    const tenants = param(needs.claiming.map((c) => c.tenant), 'text[]');
    agg('json_build_array(tenant, decision_id, body_sha256)', `decision_inbox WHERE (decision_id, tenant) IN (SELECT * FROM unnest(${ids}, ${tenants}))`, 'inbox');
  }
  if (needs.consentTenants.length > 0) agg('json_build_array(tenant, principal, consent_key)', `consent_grants WHERE tenant = ANY(${param(needs.consentTenants, 'text[]')})`, 'consent');
  if (needs.egressTenants.length > 0) agg('json_build_array(tenant, provider)', `egress_policies WHERE tenant = ANY(${param(needs.egressTenants, 'text[]')})`, 'egress');
  if (needs.confirmationIds.length > 0) {
    agg(
      `json_build_object('confirmationId', confirmation_id, 'tenant', tenant, 'principal', principal, 'issuer', issuer, 'tool', tool,
                         'payloadSha256', payload_sha256, 'status', status, 'grantExpiresAt', grant_expires_at)`,
      `confirmations WHERE confirmation_id = ANY(${param(needs.confirmationIds, 'text[]')})`,
      'confirmations',
    );
  }
  if (needs.sessionIds.length > 0) {
    // Hashed here as buildEffectContext hashes them, so no SHA-256 is spent in the process for it.
    agg(
      'session_id_hash',
      `revoked_sessions WHERE revoked_at <= now() AND session_id_hash = ANY(ARRAY(SELECT encode(sha256(convert_to(s, 'UTF8')), 'hex') FROM unnest(${param(needs.sessionIds, 'text[]')}) AS s))`,
      'revoked',
    );
  }
  if (needs.positions > 0) parts.push(`ARRAY(SELECT nextval(pg_get_serial_sequence('outbox', 'seq')) FROM generate_series(1, ${param(needs.positions, 'int')})) AS positions`);
  const [raw] = await tx.$queryRawUnsafe<Raw[]>(`SELECT ${parts.join(',\n  ')}`, ...params);
  return {
    now: raw.now,
    inbox: new Map((raw.inbox ?? []).map(([tenant, decisionId, sha]) => [scopedKey(tenant, decisionId), sha])),
    consent: (raw.consent ?? []).map(([tenant, principal, consentKey]) => ({ tenant, principal, consentKey })),
    egress: (raw.egress ?? []).map(([tenant, provider]) => ({ tenant, provider })),
    confirmations: (raw.confirmations ?? []).map((c) => ({ ...c, grantExpiresAt: c.grantExpiresAt === null ? null : new Date(c.grantExpiresAt) })),
    revokedSessions: new Set(raw.revoked ?? []),
    // nextval's row order is not guaranteed: sorted, so one run's intents get positions in decision order.
    positions: (raw.positions ?? []).map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}
