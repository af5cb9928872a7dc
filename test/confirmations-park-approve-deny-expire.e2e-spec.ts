import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sha256Hex } from '@arvis/crypto';
import type { DecisionInput } from '@arvis/decision-client';
import { Harness } from './support/harness';
import { ROOT, type RunningApp } from './support/services';
import { Stack } from './support/stack';

// ledger.transfer requires a human confirmation: the decision is parked (confirmation_pending,
// not final), an approver of the same tenant who is not the requester approves or denies it
// over HTTP, and the authorizer's worker carries it on. The approver sees the action exactly as it
// will run, and each verdict is a journal entry naming the approver (ADR 0032).
describe('confirmations', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('confirm');
    authorizer = await stack.start('authorizer', 'authorizer', {
      env: { CONFIRMATION_POLL_MS: '200', CONFIRMATION_REQUEST_TTL_MS: '8000', JWT_CLOCK_SKEW_S: '0' },
    });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const api = async (method: 'GET' | 'POST', path: string, token?: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & Record<string, unknown>[] };
  };
  const transfer = async (id: string, reference: string, identity?: string): Promise<DecisionInput> => ({
    decisionId: id,
    runId: 'confirm-run',
    causalId: id,
    tool: 'ledger.transfer',
    payload: { from: 'acc-1', to: 'acc-2', amountMinor: 12_500, currency: 'EUR', reference },
    riskScore: 0.2,
    identity: identity ?? (await h.token({ principal: 'alice', tenant: 'acme' })),
  });
  const confirmationOf = async (decisionId: string) =>
    (await h.query<{ confirmation_id: string; status: string }>('SELECT confirmation_id, status FROM confirmations WHERE decision_id = $1', [decisionId]))[0];
  const verdicts = async (decisionId: string) =>
    (await h.query<{ kind: string; entry: string }>('SELECT kind, entry FROM journal WHERE decision_id = $1 ORDER BY journal.journal_seq', [decisionId])).map((r) => {
      const e = JSON.parse(r.entry) as { kind: string; reasonCode?: string; approver?: unknown };
      return [e.kind, e.reasonCode ?? null, e.approver ?? null];
    });
  const entries = (decisionId: string) =>
    h.query<{ kind: string; reason_code: string | null; effect_boundary: string }>(
      'SELECT kind, reason_code, effect_boundary FROM journal WHERE decision_id = $1 ORDER BY journal.journal_seq',
      [decisionId],
    );

  it('parks, refuses the wrong approvers with 401/403/404/409, and runs the transfer once after approval', async () => {
    const d = await transfer('c:approve', 'invoice-1');
    await h.client.send([d]);
    await h.waitUntil('the decision to be parked', async () => !!(await confirmationOf(d.decisionId)));
    expect(await entries(d.decisionId)).toEqual([{ kind: 'confirmation_pending', reason_code: 'confirmation_required', effect_boundary: 'effect_not_started' }]);
    expect(await h.finalRows([d.decisionId])).toEqual([]);
    const { confirmation_id: id } = await confirmationOf(d.decisionId);

    const carol = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    expect((await api('GET', '/confirmations')).status).toBe(401);
    expect((await api('GET', '/confirmations', 'not-a-token')).status).toBe(401);
    expect((await api('POST', `/confirmations/${id}/approve`, await h.token({ principal: 'dave', tenant: 'acme' }))).status).toBe(403);
    expect((await api('POST', `/confirmations/${id}/approve`, await h.token({ principal: 'erin', tenant: 'globex', roles: ['approver'] }))).status).toBe(403);
    expect((await api('POST', `/confirmations/${id}/approve`, await h.token({ principal: 'alice', tenant: 'acme', roles: ['approver'] }))).status).toBe(403);
    expect((await api('POST', '/confirmations/no-such-id/approve', carol)).status).toBe(404);
    const listed = await api('GET', '/confirmations', carol);
    expect(listed.status).toBe(200);
    const shown = (listed.body as unknown as { confirmationId: string; payloadCanonical: string }[]).find((c) => c.confirmationId === id);
    const [stored] = await h.query<{ payload_sha256: string; expires_at: Date }>('SELECT payload_sha256, expires_at FROM confirmations WHERE confirmation_id = $1', [id]);
    expect(shown).toEqual({
      confirmationId: id,
      decisionId: d.decisionId,
      runId: 'confirm-run',
      requester: { principal: 'alice', issuer: stack.env.issuer.issuer, serviceId: 'agent-1' },
      tool: 'ledger.transfer',
      labels: { provider: null, dataEgress: false, dataClass: 'financial', reversible: false },
      riskScore: 0.2,
      // The demo's money hint beside the exact amount; an irreversible tool; nothing earlier in the run (ADR 0069).
      display: [{ field: 'amountMinor', kind: 'money', exact: '12500', shown: 'EUR 125.00 (2 minor units)', problem: null }],
      typedConfirmation: 'ledger.transfer',
      earlier: [],
      payload: d.payload,
      payloadCanonical: expect.stringContaining('"amountMinor":12500'),
      payloadSha256: stored.payload_sha256,
      hiddenCharacters: [],
      requestedAt: expect.any(String),
      expiresAt: stored.expires_at.toISOString(),
    });
    expect(sha256Hex(shown!.payloadCanonical)).toBe(stored.payload_sha256);
    expect((await api('GET', '/confirmations?limit=0', carol)).status).toBe(400);
    expect((await api('GET', '/confirmations', await h.token({ principal: 'erin', tenant: 'globex', roles: ['approver'] }))).body).toEqual([]);

    const approved = await api('POST', `/confirmations/${id}/approve`, carol);
    expect([approved.status, approved.body]).toEqual([200, { confirmationId: id, status: 'approved' }]);
    expect((await api('POST', `/confirmations/${id}/approve`, carol)).status).toBe(409);

    await h.waitUntil('the resumed decision to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    const [ledger] = await h.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE tenant = 'acme'");
    expect(ledger.n).toBe('1');
    expect((await confirmationOf(d.decisionId)).status).toBe('consumed');
    // The verdict names carol and her token's issuer, between the parking and the result.
    expect(await verdicts(d.decisionId)).toEqual([
      ['confirmation_pending', 'confirmation_required', null],
      ['confirmation_approved', null, { issuer: stack.env.issuer.issuer, subject: 'carol' }],
      ['tool_result', null, null],
    ]);
    // What the approver was shown is what ran: it hashes to the intent's payload commitment.
    const [intent] = await h.query<{ payload_sha256: string }>('SELECT payload_sha256 FROM intents WHERE decision_id = $1', [d.decisionId]);
    expect(sha256Hex(shown!.payloadCanonical)).toBe(intent.payload_sha256);
  });

  it('ends a denied decision in confirmation_denied and an unanswered one in confirmation_expired', async () => {
    const denied = await transfer('c:deny', 'invoice-2');
    const ignored = await transfer('c:expire', 'invoice-3');
    await h.client.send([denied, ignored]);
    await h.waitUntil('both to be parked', async () => !!(await confirmationOf(denied.decisionId)) && !!(await confirmationOf(ignored.decisionId)));
    const carol = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    // One page at a time, oldest first, the next after the last one seen.
    const first = (await api('GET', '/confirmations?limit=1', carol)).body as unknown as { confirmationId: string }[];
    const second = (await api('GET', `/confirmations?limit=1&after=${first[0].confirmationId}`, carol)).body as unknown as { confirmationId: string }[];
    const both = [(await confirmationOf(denied.decisionId)).confirmation_id, (await confirmationOf(ignored.decisionId)).confirmation_id];
    expect([first.length, second.length]).toEqual([1, 1]);
    expect([first[0].confirmationId, second[0].confirmationId].sort()).toEqual([...both].sort());
    const deniedId = (await confirmationOf(denied.decisionId)).confirmation_id;
    // A comment is one line (ADR 0069): a line break is refused and nothing is decided.
    expect((await api('POST', `/confirmations/${deniedId}/deny`, carol, { comment: 'no\nway' })).status).toBe(400);
    expect((await api('POST', `/confirmations/${deniedId}/deny`, carol, { comment: 'not this quarter' })).status).toBe(200);

    await h.waitUntil('both to end', async () => (await h.finalRows([denied.decisionId, ignored.decisionId])).length === 2, 30_000);
    const rows = new Map((await h.finalRows([denied.decisionId, ignored.decisionId])).map((r) => [r.decision_id, r]));
    expect([rows.get(denied.decisionId)?.kind, rows.get(denied.decisionId)?.reason_code]).toEqual(['authorization_refusal', 'confirmation_denied']);
    expect([rows.get(ignored.decisionId)?.kind, rows.get(ignored.decisionId)?.reason_code]).toEqual(['authorization_refusal', 'confirmation_expired']);
    expect(await verdicts(denied.decisionId)).toEqual([
      ['confirmation_pending', 'confirmation_required', null],
      ['confirmation_denied', 'confirmation_denied', { issuer: stack.env.issuer.issuer, subject: 'carol', comment: 'not this quarter' }],
      ['authorization_refusal', 'confirmation_denied', null],
    ]);
    // An expiry is nobody's verdict: no entry names an approver.
    expect((await verdicts(ignored.decisionId)).map(([kind]) => kind)).toEqual(['confirmation_pending', 'authorization_refusal']);
    expect((await confirmationOf(ignored.decisionId)).status).toBe('expired');
    expect((await api('POST', `/confirmations/${(await confirmationOf(ignored.decisionId)).confirmation_id}/approve`, carol)).status).toBe(409);
    const [ledger] = await h.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE tenant = 'acme'");
    expect(ledger.n).toBe('1');
  });

  it('catches, at admission, a session revoked while the decision waited, and at policy a token that expired meanwhile', async () => {
    const revokedSession = await transfer('c:revoked', 'invoice-4', await h.token({ principal: 'alice', tenant: 'acme', sessionId: 'session-to-revoke' }));
    const shortLived = await transfer('c:expiring', 'invoice-5', await h.token({ principal: 'alice', tenant: 'acme' }, 2));
    await h.client.send([revokedSession, shortLived]);
    await h.waitUntil('both to be parked', async () => !!(await confirmationOf(revokedSession.decisionId)) && !!(await confirmationOf(shortLived.decisionId)));
    await h.query('INSERT INTO revoked_sessions (session_id_hash) VALUES ($1)', [sha256Hex('session-to-revoke')]);
    await new Promise((r) => setTimeout(r, 2500)); // the short-lived token expires while parked

    const carol = await h.token({ principal: 'carol', tenant: 'acme', roles: ['approver'] });
    for (const d of [revokedSession, shortLived]) {
      expect((await api('POST', `/confirmations/${(await confirmationOf(d.decisionId)).confirmation_id}/approve`, carol)).status).toBe(200);
    }
    await h.waitUntil('both to end', async () => (await h.finalRows([revokedSession.decisionId, shortLived.decisionId])).length === 2);
    const rows = new Map((await h.finalRows([revokedSession.decisionId, shortLived.decisionId])).map((r) => [r.decision_id, r]));
    expect([rows.get(revokedSession.decisionId)?.kind, rows.get(revokedSession.decisionId)?.reason_code]).toEqual(['admission_refusal', 'identity_invalid']);
    expect([rows.get(shortLived.decisionId)?.kind, rows.get(shortLived.decisionId)?.reason_code]).toEqual(['authorization_refusal', 'identity_invalid']);
    const caps = await h.query<{ state: string }>('SELECT state FROM capabilities WHERE decision_id = $1', [revokedSession.decisionId]);
    expect(caps).toEqual([{ state: 'revoked' }]);
    // Not reserved, never spent: the approval stays usable, nothing moved.
    expect((await confirmationOf(revokedSession.decisionId)).status).toBe('approved');
    const [ledger] = await h.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE tenant = 'acme'");
    expect(ledger.n).toBe('1');
  });
  it('refuses an approval whose grant lapsed before the decision resumed, and leaves it unspent', async () => {
    const d = await transfer('c:grant-lapsed', 'invoice-6');
    await h.client.send([d]);
    await h.waitUntil('the decision to be parked', async () => !!(await confirmationOf(d.decisionId)));
    // An approval recorded with a grant already over, as if the worker had been down all of it.
    const approved = await h.db.query(
      `UPDATE confirmations SET status = 'approved', decided_by = 'carol', decided_at = now(),
              grant_expires_at = now() - interval '1 second'
       WHERE decision_id = $1 AND status = 'pending'`,
      [d.decisionId],
    );
    expect(approved.rowCount).toBe(1);
    await h.waitUntil('the resumed decision to end', async () => (await h.finalRows([d.decisionId])).length === 1);
    expect((await h.finalRows([d.decisionId]))[0]).toMatchObject({ kind: 'authorization_refusal', reason_code: 'confirmation_required' });
    expect(await h.query('SELECT state FROM capabilities WHERE decision_id = $1', [d.decisionId])).toEqual([]);
    expect((await confirmationOf(d.decisionId)).status).toBe('approved');
    const [ledger] = await h.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE tenant = 'acme'");
    expect(ledger.n).toBe('1');
  });

  it('leaves a journal that cli verify passes and cli replay matches, verdicts included', async () => {
    const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = stack.env.appEnv;
    const cli = async (...args: string[]) =>
      JSON.parse(
        (await promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), ...args, '--json'], {
          env: { PATH: process.env.PATH ?? '', DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX },
        })).stdout,
      ) as Record<string, unknown>;
    const kinds = await h.query<{ kind: string }>("SELECT DISTINCT kind FROM journal WHERE run_id = 'confirm-run' AND kind LIKE 'confirmation_%' ORDER BY kind");
    expect(kinds.map((k) => k.kind)).toEqual(['confirmation_approved', 'confirmation_denied', 'confirmation_pending']);
    expect(await cli('verify')).toMatchObject({ intact: true, firstBreak: null });
    expect(await cli('replay', 'confirm-run')).toMatchObject({ runId: 'confirm-run', known: true, matches: true, mismatches: [] });
  });
});
