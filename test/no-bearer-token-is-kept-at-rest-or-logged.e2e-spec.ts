import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sha256Hex } from '@arvis/crypto';
import { mintIdentityToken } from '@arvis/decision-client';
import { Harness } from './support/harness';
import type { RunningApp } from './support/services';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// A bearer token kept anywhere is a token someone can steal and replay (ADR 0035). Decisions go
// every way a token could be kept: one completes, one is parked, approved and resumed, one
// fails and is retried, one comes from an untrusted key and one is unreadable (both dead
// letters). Afterwards no table (inbox, confirmations, journal, outbox with its DLQ copies, every
// other one) and no app log holds any of the tokens, nor their payload segments; the inbox keeps
// each token's SHA-256 and the DLQ copies carry it in the token's place.
describe('no bearer token at rest', () => {
  let stack: Stack;
  let h: Harness;
  let apps: RunningApp[];
  beforeAll(async () => {
    stack = await Stack.create('tokensatrest');
    const env = { CONFIRMATION_POLL_MS: '200', RETRY_POLL_MS: '200' };
    apps = [await stack.start('authorizer', 'authorizer', { env }), await stack.start('dispatcher', 'dispatcher')];
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('keeps claims and SHA-256s, never a token nor its payload segment, in any table, DLQ copy or log', async () => {
    const tokens: string[] = [];
    const token = async (sessionId: string, roles: string[] = [], principal = 'alice') => {
      const t = await h.token({ principal, sessionId, roles });
      tokens.push(t);
      return t;
    };
    const [completed] = await h.decisions('atrest-run', 1, { decisionId: 'atrest:note', identity: await token('s-note') });
    const [retried] = await h.decisions('atrest-run', 1, {
      decisionId: 'atrest:flaky', causalId: 'flaky', tool: 'flaky.record', payload: { key: 'atrest', failTimes: 1 }, identity: await token('s-flaky'),
    });
    const [parked] = await h.decisions('atrest-run', 1, {
      decisionId: 'atrest:transfer', causalId: 'transfer', tool: 'ledger.transfer', riskScore: 0.2, identity: await token('s-transfer'),
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 100, currency: 'EUR', reference: 'atrest' },
    });
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const untrustedToken = await mintIdentityToken({ issuer: stack.env.issuer.issuer, privateKeyPem: stranger }, { principal: 'alice', tenant: 'acme', serviceId: 'agent-1' });
    tokens.push(untrustedToken);
    const [untrusted] = await h.decisions('atrest-run', 1, { decisionId: 'atrest:untrusted', causalId: 'untrusted', identity: untrustedToken });
    await h.client.send([completed, retried, parked, untrusted]);
    const unreadableToken = await token('s-unreadable');
    await h.produceRaw(h.topics.decisions, 'atrest-run', `{"identity":"${unreadableToken}",`);

    await h.waitUntil('the transfer to be parked', async () => (await h.query('SELECT 1 FROM confirmations WHERE decision_id = $1', [parked.decisionId])).length === 1);
    const [{ confirmation_id: id }] = await h.query<{ confirmation_id: string }>('SELECT confirmation_id FROM confirmations WHERE decision_id = $1', [parked.decisionId]);
    const approver = await token('s-carol', ['approver'], 'carol');
    const res = await fetch(`http://127.0.0.1:${apps[0].apiPort}/confirmations/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${approver}` } });
    expect(res.status).toBe(200);

    const ids = [completed.decisionId, parked.decisionId];
    await h.waitUntil('the note and the transfer to complete', async () => (await h.finalRows(ids)).length === 2);
    await h.waitUntil('the retry to complete', async () => (await h.query(`SELECT 1 FROM retries WHERE chain_id = $1 AND status = 'submitted'`, [retried.decisionId])).length === 1);
    await h.waitUntil('the dead letters', () => h.journal.deadLettersFor([untrusted.decisionId]).size === 1 && h.journal.deadLetters.some((d) => d.reasonCode === 'malformed_message'), 30_000);
    await h.waitUntil('every outbox row published', async () => (await h.query('SELECT 1 FROM outbox WHERE published_at IS NULL')).length === 0);

    // The inbox keeps each decision's token SHA-256 and the verified claims, and a body without the token.
    const inbox = await h.query<{ decision_id: string; identity_sha256: string; claims: { principal: string; issuer: string }; body: string }>(
      `SELECT decision_id, identity_sha256, identity_claims AS claims, body FROM decision_inbox WHERE run_id = 'atrest-run' ORDER BY decision_id`,
    );
    expect(inbox.map((r) => [r.decision_id.replace(/^arvis\.retry\..*$/, 'retry'), r.identity_sha256, r.claims.principal, r.claims.issuer])).toEqual(
      [
        ['atrest:flaky', sha256Hex(retried.identity), 'alice', stack.env.issuer.issuer],
        ['atrest:note', sha256Hex(completed.identity), 'alice', stack.env.issuer.issuer],
        ['atrest:transfer', sha256Hex(parked.identity), 'alice', stack.env.issuer.issuer],
        ['retry', sha256Hex(retried.identity), 'alice', stack.env.issuer.issuer],
      ].sort((a, b) => (a[0] === 'retry' ? -1 : b[0] === 'retry' ? 1 : a[0].localeCompare(b[0]))),
    );
    const letter = h.journal.deadLettersFor([untrusted.decisionId]).get(untrusted.decisionId)!;
    expect(letter.identitySha256).toBe(sha256Hex(untrustedToken));
    expect(Buffer.from(letter.rawBase64, 'base64').toString()).toContain(`"identity":"sha256:${sha256Hex(untrustedToken)}"`);

    // Every table's every row, as text, and every app's log.
    const tables = await h.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['decision_inbox', 'confirmations', 'journal', 'outbox', 'intents']));
    let rest = '';
    for (const { name } of tables) rest += (await h.query<{ t: string }>(`SELECT t::text AS t FROM "${name}" t`)).map((r) => r.t).join('\n');
    // Published outbox rows are deleted (ADR 0048): what they held is read back from the topics.
    const published = (await Promise.all([h.topics.intents, h.topics.journal].map((t) => readWholeTopic(stack.env.brokers, t)))).flat().map((r) => r.value);
    expect(published.length).toBeGreaterThan(0);
    const outboxText = [...(await h.query<{ payload: string }>('SELECT payload FROM outbox')).map((r) => Buffer.from(r.payload).toString()), ...published].join('\n');
    // DLQ copies are base64 inside the outbox payload: decode them too.
    const copies = h.journal.deadLetters.map((d) => Buffer.from(d.rawBase64, 'base64').toString()).join('\n');
    const logs = apps.map((a) => readFileSync(a.logFile, 'utf8')).join('\n');
    const secrets = tokens.flatMap((t) => [t, t.split('.')[1]]);
    const found = (where: string) => secrets.filter((s) => where.includes(s)).length;
    expect({ tables: found(rest), outbox: found(outboxText), dlqCopies: found(copies), logs: found(logs) }).toEqual({ tables: 0, outbox: 0, dlqCopies: 0, logs: 0 });
    expect(rest.length).toBeGreaterThan(1000);
  });
});
