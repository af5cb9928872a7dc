/**
 * `cli admin ...`: the operator's acts go through the authorizer's admin API with the operator's
 * own bearer token (ADR 0036), never straight to the database: the authorizer verifies the token
 * (issuer, admin audience, admin role, session not revoked) and journals the act under that
 * verified identity in the state change's transaction, and the CLI stays read-only on the
 * database (its pool refuses writes). This module turns the command line into the request.
 */
export interface AdminRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

export interface AdminOptions {
  note?: string;
  sessionId?: string;
  sessionHash?: string;
  outcome?: string;
}

export const ADMIN_ACTIONS = [
  'revoke-session',
  'end-console-sessions',
  'grant-consent',
  'withdraw-consent',
  'allow-egress',
  'deny-egress',
  'resolve-effect',
  'redrive-dead-letter',
  'discard-dead-letter',
  'release-quarantined',
  'discard-quarantined',
  'store',
  'rebind-store',
  'reconcile-rollback',
] as const;

export const ADMIN_USAGE = `  admin revoke-session (--session-id S | --session-hash H) [--note N]
  admin end-console-sessions <issuer> [<principal>] [--note N]
                    ends this tenant's live console sessions opened through that issuer (or one principal's)
  admin grant-consent|withdraw-consent <tenant> <principal> <consentKey> [--note N]
  admin allow-egress|deny-egress <tenant> <provider> [--note N]
  admin resolve-effect <decisionId> --outcome completed|not-happened --note N
                    after checking the outside world: the effect_state_unknown happened, or not
  admin redrive-dead-letter intents <partition> <offset> [--note N]
                    a dead-lettered decision is never re-driven (409 decision_not_redrivable): its producer resends it
  admin discard-dead-letter <decisions|intents> <partition> <offset> [--note N]
  admin release-quarantined|discard-quarantined <outboxSeq> [--note N]
  admin store       this store's fingerprint, those it accepts, and foreign ones its intents name
  admin rebind-store <previousFingerprint> --note N
                    after a restore into another cluster or database (docs/operations.md)
  admin reconcile-rollback --note N
                    after a restore from a dump older than the journal topic's head (docs/operations.md)`;

/** Thrown for a command line that names no valid admin request. */
export class AdminUsage extends Error {}

const withNote = (body: Record<string, unknown>, note?: string) => (note !== undefined ? { ...body, note } : body);

function args(action: string, rest: string[], names: string[]): string[] {
  if (rest.length !== names.length || rest.some((a) => a.trim() === '')) throw new AdminUsage(`admin ${action} takes ${names.map((n) => `<${n}>`).join(' ')}`);
  return rest;
}

function needNote(action: string, note?: string): string {
  if (note === undefined || note.trim() === '') throw new AdminUsage(`admin ${action} needs --note (say how you know)`);
  return note;
}

function deadLetter(action: string, rest: string[], note?: string): Record<string, unknown> {
  const [dlq, partition, offset] = args(action, rest, ['decisions|intents', 'partition', 'offset']);
  if (dlq !== 'decisions' && dlq !== 'intents') throw new AdminUsage(`admin ${action}: the DLQ is decisions or intents`);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(partition)) throw new AdminUsage(`admin ${action}: the partition is a number`);
  if (!/^(0|[1-9][0-9]{0,19})$/.test(offset)) throw new AdminUsage(`admin ${action}: the offset is a decimal number`);
  return withNote({ dlq, partition: Number(partition), offset }, note);
}

/** Pure: the HTTP request an admin command line stands for. */
export function adminRequestOf(action: string, rest: string[], o: AdminOptions): AdminRequest {
  const enc = encodeURIComponent;
  switch (action) {
    case 'revoke-session': {
      args(action, rest, []);
      if ((o.sessionId === undefined) === (o.sessionHash === undefined)) throw new AdminUsage('admin revoke-session takes --session-id or --session-hash');
      const session = o.sessionId !== undefined ? { sessionId: o.sessionId } : { sessionIdHash: o.sessionHash };
      return { method: 'POST', path: '/admin/sessions/revoke', body: withNote(session, o.note) };
    }
    case 'end-console-sessions': {
      if (rest.length < 1 || rest.length > 2 || rest.some((a) => a.trim() === '')) throw new AdminUsage('admin end-console-sessions takes <issuer> [<principal>]');
      const [issuer, principal] = rest;
      return { method: 'POST', path: '/admin/console-sessions/end', body: withNote({ issuer, ...(principal !== undefined ? { principal } : {}) }, o.note) };
    }
    case 'grant-consent':
    case 'withdraw-consent': {
      const [tenant, principal, consentKey] = args(action, rest, ['tenant', 'principal', 'consentKey']);
      return { method: 'POST', path: `/admin/consents/${action === 'grant-consent' ? 'grant' : 'withdraw'}`, body: withNote({ tenant, principal, consentKey }, o.note) };
    }
    case 'allow-egress':
    case 'deny-egress': {
      const [tenant, provider] = args(action, rest, ['tenant', 'provider']);
      return { method: 'POST', path: '/admin/egress-policies', body: withNote({ tenant, provider, allowed: action === 'allow-egress' }, o.note) };
    }
    case 'resolve-effect': {
      const [decisionId] = args(action, rest, ['decisionId']);
      if (o.outcome !== 'completed' && o.outcome !== 'not-happened') throw new AdminUsage('admin resolve-effect needs --outcome completed or --outcome not-happened');
      const outcome = o.outcome === 'completed' ? 'completed' : 'not_happened';
      return { method: 'POST', path: `/admin/effects/${enc(decisionId)}/resolve`, body: { outcome, note: needNote(action, o.note) } };
    }
    case 'redrive-dead-letter':
    case 'discard-dead-letter':
      return { method: 'POST', path: `/admin/dead-letters/${action === 'redrive-dead-letter' ? 'redrive' : 'discard'}`, body: deadLetter(action, rest, o.note) };
    case 'release-quarantined':
    case 'discard-quarantined': {
      const [seq] = args(action, rest, ['outboxSeq']);
      if (!/^[1-9][0-9]{0,19}$/.test(seq)) throw new AdminUsage(`admin ${action}: the outbox seq is a positive number`);
      return { method: 'POST', path: `/admin/outbox/${seq}/${action === 'release-quarantined' ? 'release' : 'discard'}`, body: withNote({}, o.note) };
    }
    case 'store':
      args(action, rest, []);
      return { method: 'GET', path: '/admin/store' };
    case 'rebind-store': {
      const [fromFingerprint] = args(action, rest, ['previousFingerprint']);
      return { method: 'POST', path: '/admin/store/rebind', body: { fromFingerprint, note: needNote(action, o.note) } };
    }
    case 'reconcile-rollback':
      args(action, rest, []);
      return { method: 'POST', path: '/admin/store/reconcile-rollback', body: { note: needNote(action, o.note) } };
    default:
      throw new AdminUsage(`unknown admin action: ${action} (one of ${ADMIN_ACTIONS.join(', ')})`);
  }
}
