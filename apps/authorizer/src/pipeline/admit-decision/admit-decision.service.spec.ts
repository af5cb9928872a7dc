import { generateKeyPairSync } from 'node:crypto';
import { buildEffectContext, type AuthorizedEffectContext } from '@arvis/effect-context';
import { sha256Hex } from '@arvis/crypto';
import { mintIdentityToken } from '@arvis/decision-client';
import type { Authorized } from '../../policy/authorize-decision/authorization.types';
import type { AuthorizerConfig } from '../../config/authorizer.config';
import { VerifyIdentityService } from '../../policy/verify-identity/verify-identity.service';
import { AdmitDecisionService } from './admit-decision.service';

// Admission's own judgement, without a database: admission is handed what the slice's read
// statement read for it (database time, revoked sessions). The e2e specs cover the same service
// against PostgreSQL for revoked sessions and expired tokens; a context that differs cannot be
// produced over the wire (the same claims rebuild the same context), so it is proved here.
// Admission re-checks the claims kept for the decision, never a token (ADR 0035).
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const issuer = { issuer: 'test-idp', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
const config = {
  identity: {
    issuers: [
      {
        issuer: 'test-idp',
        alg: 'EdDSA',
        publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        tenants: ['*'],
        claims: { subject: 'sub', tenant: 'tenant', roles: 'roles', service: 'azp' },
      },
    ],
    clockSkewS: 0,
  },
} as unknown as AuthorizerConfig;

/** What the slice's read statement hands admission: database time and the revoked session hashes. */
const at = (now: Date, revokedHashes: string[] = []) => ({ now, revokedSessions: new Set(revokedHashes) });

const withIssuer = (edit: Record<string, unknown>) =>
  ({ identity: { ...config.identity, issuers: [{ ...config.identity.issuers[0], ...edit }] } }) as unknown as AuthorizerConfig;

async function authorized(edit: (ctx: AuthorizedEffectContext) => AuthorizedEffectContext = (c) => c, cfg = config, resumed = false): Promise<Authorized> {
  const token = await mintIdentityToken(issuer, { principal: 'alice', tenant: 'acme', serviceId: 'agent-svc', sessionId: 's-1' });
  const identity = await new VerifyIdentityService(cfg).verify(token);
  if (!identity.ok) throw new Error(identity.detail);
  const decision = { decisionId: 'd1', runId: 'run-1', processId: 'proc-1' };
  return {
    decision,
    stored: identity.stored,
    resumed,
    effectContext: edit(buildEffectContext(identity.identity, { processId: 'proc-1', runId: 'run-1' })),
  } as unknown as Authorized;
}

describe('admission', () => {
  const admission = new AdmitDecisionService(new VerifyIdentityService(config));

  it('admits a decision whose effect context the token rebuilds exactly', async () => {
    const a = await authorized();
    expect(await admission.admit([a], at(new Date()))).toEqual({ admitted: [a], refused: [] });
  });

  it.each([
    ['tenant', (c: AuthorizedEffectContext) => ({ ...c, tenant: 'globex' })],
    ['principal', (c: AuthorizedEffectContext) => ({ ...c, principal: 'mallory' })],
    ['runId', (c: AuthorizedEffectContext) => ({ ...c, runId: 'run-2' })],
    ['sessionIdHash', (c: AuthorizedEffectContext) => ({ ...c, sessionIdHash: null })],
  ])('refuses with effect_context_mismatch when the authorized context differs in %s', async (field, edit) => {
    const a = await authorized(edit);
    const { admitted, refused } = await admission.admit([a], at(new Date()));
    expect(admitted).toEqual([]);
    expect(refused).toEqual([{ authorized: a, reasonCode: 'effect_context_mismatch', detail: `effect context differs in ${field}` }]);
  });

  it('refuses a revoked session and a token expired by database time with identity_invalid', async () => {
    const a = await authorized();
    const revoked = await admission.admit([a], at(new Date(), [sha256Hex('s-1')]));
    expect(revoked.refused.map((r) => [r.reasonCode, r.detail])).toEqual([['identity_invalid', 'at admission: the session was revoked']]);
    const later = await admission.admit([a], at(new Date(Date.now() + 3_600_000)));
    expect(later.refused.map((r) => [r.reasonCode, r.detail])).toEqual([['identity_invalid', 'at admission: token expired']]);
  });

  it('refuses the kept claims once their issuer is no longer trusted or its rules changed', async () => {
    const a = await authorized();
    const gone = new AdmitDecisionService(new VerifyIdentityService({ identity: { ...config.identity, issuers: [] } } as unknown as AuthorizerConfig));
    expect((await gone.admit([a], at(new Date()))).refused.map((r) => r.detail)).toEqual(['at admission: issuer "test-idp" is not trusted']);
    const narrowed = new AdmitDecisionService(new VerifyIdentityService(withIssuer({ tenants: ['acme'] })));
    expect((await narrowed.admit([a], at(new Date()))).refused.map((r) => r.detail)).toEqual([
      'at admission: issuer_rules_changed: the rules or keys of issuer "test-idp" changed since the token was verified',
    ]);
  });

  it('binds a resumed decision to its session past the token expiry only where the issuer says so', async () => {
    const bound = withIssuer({ parkedDecisions: 'session' });
    const admissionBound = new AdmitDecisionService(new VerifyIdentityService(bound));
    const later = new Date(Date.now() + 3_600_000);
    const resumed = await authorized((c) => c, bound, true);
    expect((await admissionBound.admit([resumed], at(later))).admitted).toEqual([resumed]);
    const revoked = await admissionBound.admit([resumed], at(later, [sha256Hex('s-1')]));
    expect(revoked.refused.map((r) => r.detail)).toEqual(['at admission: the session was revoked']);
    // A retry (not resumed) keeps the token's expiry, and so does the default rule.
    const retried = await authorized((c) => c, bound, false);
    expect((await admissionBound.admit([retried], at(later))).refused.map((r) => r.detail)).toEqual(['at admission: token expired']);
    const byDefault = await authorized((c) => c, config, true);
    expect((await admission.admit([byDefault], at(later))).refused.map((r) => r.detail)).toEqual(['at admission: token expired']);
  });
});
