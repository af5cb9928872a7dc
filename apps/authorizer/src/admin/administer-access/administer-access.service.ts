import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { Database, type Tx } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';
import { journalOperatorAct, type JournaledAct } from '../admin-guard/operator-journal';
import { consentTarget, consoleSessionsTarget, egressTarget, sessionHashOf, type ConsentBody, type EgressBody, type EndConsoleSessionsBody, type RevokeSessionBody } from './access-requests';

const otherTenant = (tenant: string) =>
  refusal(HttpStatus.FORBIDDEN, 'other_tenant', `the operator's token speaks for another tenant than ${JSON.stringify(tenant)}`);

/**
 * The access data admission and policy read, changed by an operator instead of by SQL (ADR 0036):
 * revoked sessions, consents, egress policies. Each change is one statement whose row count says
 * whether it happened; only a change that happened is journaled, in the same transaction.
 * Consents and egress belong to a tenant: an operator changes only their own tenant's.
 */
@Injectable()
export class AdministerAccessService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
  ) {}

  async revokeSession(operator: Operator, body: RevokeSessionBody): Promise<AdminOutcome<JournaledAct & { sessionIdHash: string }>> {
    const hash = sessionHashOf(body);
    const act = await this.once(
      (tx) => tx.$executeRaw`INSERT INTO revoked_sessions (session_id_hash) VALUES (${hash}) ON CONFLICT DO NOTHING`,
      operator,
      { name: 'revoke_session', target: hash, note: body.note },
    );
    if (!act) return { ok: false, ...refusal(HttpStatus.CONFLICT, 'already_revoked', 'the session is already revoked') };
    return { ok: true, body: { ...act, sessionIdHash: hash } };
  }

  async grantConsent(operator: Operator, body: ConsentBody): Promise<AdminOutcome<JournaledAct>> {
    if (body.tenant !== operator.tenant) return { ok: false, ...otherTenant(body.tenant) };
    const act = await this.once(
      (tx) => tx.$executeRaw`
        INSERT INTO consent_grants (tenant, principal, consent_key) VALUES (${body.tenant}, ${body.principal}, ${body.consentKey}) ON CONFLICT DO NOTHING`,
      operator,
      { name: 'grant_consent', target: consentTarget(body), note: body.note },
    );
    return act ? { ok: true, body: act } : { ok: false, ...refusal(HttpStatus.CONFLICT, 'already_granted', 'the consent is already granted') };
  }

  async withdrawConsent(operator: Operator, body: ConsentBody): Promise<AdminOutcome<JournaledAct>> {
    if (body.tenant !== operator.tenant) return { ok: false, ...otherTenant(body.tenant) };
    const act = await this.once(
      (tx) => tx.$executeRaw`
        DELETE FROM consent_grants WHERE tenant = ${body.tenant} AND principal = ${body.principal} AND consent_key = ${body.consentKey}`,
      operator,
      { name: 'withdraw_consent', target: consentTarget(body), note: body.note },
    );
    return act ? { ok: true, body: act } : { ok: false, ...refusal(HttpStatus.NOT_FOUND, 'not_granted', 'no such consent') };
  }

  async setEgress(operator: Operator, body: EgressBody): Promise<AdminOutcome<JournaledAct>> {
    if (body.tenant !== operator.tenant) return { ok: false, ...otherTenant(body.tenant) };
    const action = { name: body.allowed ? ('allow_egress' as const) : ('deny_egress' as const), target: egressTarget(body), note: body.note };
    const act = await this.once(
      (tx) =>
        body.allowed
          ? tx.$executeRaw`INSERT INTO egress_policies (tenant, provider) VALUES (${body.tenant}, ${body.provider}) ON CONFLICT DO NOTHING`
          : tx.$executeRaw`DELETE FROM egress_policies WHERE tenant = ${body.tenant} AND provider = ${body.provider}`,
      operator,
      action,
    );
    if (act) return { ok: true, body: act };
    return { ok: false, ...refusal(HttpStatus.CONFLICT, 'unchanged', `egress to ${body.provider} is already ${body.allowed ? 'allowed' : 'not allowed'}`) };
  }

  /**
   * Ends the live console sessions of the operator's tenant opened through an issuer (all of its
   * principals', or one's): one statement, and one journal entry naming how many ended. For an
   * issuer removed or re-ruled, or a person whose access must end now, without waiting 15 minutes.
   */
  async endConsoleSessions(operator: Operator, body: EndConsoleSessionsBody): Promise<AdminOutcome<JournaledAct & { ended: number }>> {
    const principal = body.principal ?? null;
    const done = await this.db.tx(async (tx) => {
      const ended = await tx.$executeRaw`
        UPDATE console_sessions SET revoked_at = now()
        WHERE tenant = ${operator.tenant} AND issuer = ${body.issuer} AND (${principal}::text IS NULL OR principal = ${principal}::text)
          AND revoked_at IS NULL AND expires_at > now()`;
      if (ended === 0) return null;
      const act = await journalOperatorAct(tx, this.config.topics.journal, operator, { name: 'end_console_sessions', target: consoleSessionsTarget(operator.tenant, body), note: body.note });
      return { ...act, ended };
    });
    return done ? { ok: true, body: done } : { ok: false, ...refusal(HttpStatus.NOT_FOUND, 'no_live_sessions', 'no live console session of this tenant matches') };
  }

  /** The change and, when it moved exactly one row, its journal entry; null when nothing changed. */
  private once(change: (tx: Tx) => Promise<number>, operator: Operator, action: Parameters<typeof journalOperatorAct>[3]): Promise<JournaledAct | null> {
    return this.db.tx(async (tx) => {
      const moved = await change(tx);
      if (moved === 0) return null;
      if (moved !== 1) throw new Error(`${action.name}: changed ${moved} rows, expected 1`);
      return journalOperatorAct(tx, this.config.topics.journal, operator, action);
    });
  }
}
