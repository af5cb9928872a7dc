import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, commitment, sha256Hex } from '@arvis/crypto';
import { freezePayload } from '@arvis/effect-context';
import { applyMigrations } from '@arvis/persistence';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';

// Inbox rows written before ADR 0035 hold their decision's token. The migration keeps every
// token's SHA-256 and removes the tokens that can never be used again (a refused decision, an
// expired token); a parked decision with a live token keeps it, resumes after the upgrade as
// before, and loses it then, its verified claims kept instead.
const FIRST_WITHOUT_TOKENS = '20261202020000_identity_claims_not_tokens';

describe('inbox rows from before the upgrade', () => {
  let stack: Stack;
  let h: Harness;
  const all = join(ROOT, 'prisma', 'migrations');
  beforeAll(async () => {
    const before = mkdtempSync(join(tmpdir(), 'arvis-migrations-'));
    for (const m of readdirSync(all).filter((m) => m < FIRST_WITHOUT_TOKENS || m === 'migration_lock.toml')) cpSync(join(all, m), join(before, m), { recursive: true });
    stack = await Stack.create('legacyinbox', { migrationsDir: before });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const legacyRow = async (id: string, status: string, identity: string, over: Record<string, unknown> = {}) => {
    const [d] = await h.decisions('legacy-run', 1, { decisionId: id, causalId: id, identity, ...over });
    const decision = { specVersion: 1, processId: 'default', ...d };
    await h.query(`INSERT INTO decision_inbox (decision_id, run_id, causal_id, tool, body_sha256, body, status) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      id, d.runId, d.causalId, d.tool, commitment(decision), canonicalJson(decision), status,
    ]);
    return decision;
  };
  const row = async (id: string) =>
    (await h.query<{ body: string; identity_sha256: string | null; identity_claims: { principal: string } | null; status: string }>(
      'SELECT body, identity_sha256, identity_claims, status FROM decision_inbox WHERE decision_id = $1', [id],
    ))[0];

  it('keep every token SHA-256, lose the tokens no one can use, and a parked one resumes and loses its own', async () => {
    const live = await h.token({ sessionId: 's-refused' });
    const expired = await h.token({ sessionId: 's-expired' }, -60);
    const parkedToken = await h.token({ sessionId: 's-parked' });
    const refusedDecision = await legacyRow('legacy:refused', 'refused', live);
    await legacyRow('legacy:expired', 'authorized', expired);
    const transfer = { from: 'acc-1', to: 'acc-2', amountMinor: 300, currency: 'EUR', reference: 'legacy' };
    const parked = await legacyRow('legacy:parked', 'parked', parkedToken, { tool: 'ledger.transfer', payload: transfer, riskScore: 0.2 });
    const frozen = freezePayload(transfer);
    if (!frozen.ok) throw new Error(frozen.detail);
    await h.query(
      `INSERT INTO confirmations (confirmation_id, decision_id, tenant, principal, issuer, tool, payload_sha256, status, expires_at)
       VALUES ('legacy-confirmation', $1, 'acme', 'alice', $2, 'ledger.transfer', $3, 'pending', now() + interval '10 minutes')`,
      [parked.decisionId, stack.env.issuer.issuer, frozen.frozen.sha256],
    );

    await applyMigrations(stack.env.databaseUrl, all);
    const refused = await row('legacy:refused');
    const lapsed = await row('legacy:expired');
    const waiting = await row('legacy:parked');
    expect([refused.identity_sha256, lapsed.identity_sha256, waiting.identity_sha256]).toEqual([sha256Hex(live), sha256Hex(expired), sha256Hex(parkedToken)]);
    expect([refused.body.includes(live), lapsed.body.includes(expired), waiting.body.includes(parkedToken)]).toEqual([false, false, true]);
    // What is left is the decision without its token, still canonical JSON.
    const { identity: _token, ...withoutToken } = refusedDecision;
    expect(refused.body).toBe(canonicalJson(withoutToken));

    const authorizer = await stack.start('authorizer', 'authorizer', { env: { CONFIRMATION_POLL_MS: '200' } });
    await stack.start('dispatcher', 'dispatcher');
    const carol = await h.token({ principal: 'carol', roles: ['approver'] });
    const res = await fetch(`http://127.0.0.1:${authorizer.apiPort}/confirmations/legacy-confirmation/approve`, { method: 'POST', headers: { authorization: `Bearer ${carol}` } });
    expect(res.status).toBe(200);
    await h.waitUntil('the parked transfer to end', async () => (await h.finalRows([parked.decisionId])).length === 1);
    expect((await h.finalRows([parked.decisionId]))[0]).toMatchObject({ kind: 'tool_result', effect_boundary: 'effect_completed' });
    const resumed = await row('legacy:parked');
    expect([resumed.status, resumed.body.includes(parkedToken), resumed.identity_sha256, resumed.identity_claims?.principal]).toEqual([
      'authorized', false, sha256Hex(parkedToken), 'alice',
    ]);
  });
});
