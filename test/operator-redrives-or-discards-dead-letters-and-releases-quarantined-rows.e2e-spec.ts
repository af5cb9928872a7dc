import { importPKCS8, SignJWT } from 'jose';
import { adminApi, cli, OPERATOR_ENTRIES_SQL } from './support/admin-api';
import { Harness } from './support/harness';
import { Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// An operator's remedies for what the system set aside (ADR 0036): a dead letter is re-driven
// (its original bytes sent again to its source topic, through the outbox) or discarded, once; a
// quarantined outbox row is released (the relay sends it) or discarded (never sent). Each act is
// an operator_action entry naming the operator.
describe('dead letters and quarantined outbox rows, by the operator', () => {
  let stack: Stack;
  let h: Harness;
  let api: ReturnType<typeof adminApi>;
  let olga: string;
  beforeAll(async () => {
    stack = await Stack.create('remedies');
    // No clock skew tolerance: a token not valid for 3 more seconds is refused at intake.
    api = adminApi(await stack.start('authorizer', 'authorizer', { env: { JWT_CLOCK_SKEW_S: '0' } }));
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    olga = await h.token({ principal: 'olga', tenant: 'acme', roles: ['admin'] });
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const deadLetterOf = async (decisionId: string) => {
    let found: { partition: number; offset: string; value: string } | undefined;
    await h.waitUntil(`the dead letter of ${decisionId}`, async () => {
      found = (await readWholeTopic(stack.env.brokers, h.topics.decisionsDlq)).find((r) => r.value.includes(`"decisionId":"${decisionId}"`));
      return found !== undefined;
    });
    return found!;
  };

  it('re-drives an intent\'s dead letter once and discards a decision\'s once; a dead-lettered decision is never re-driven', async () => {
    // A token that is not valid yet (nbf in 3 s): dead-lettered as identity_invalid. Its copy keeps
    // only the token's SHA-256 (ADR 0035), so it cannot be sent again: its producer must resend.
    const now = Math.floor(Date.now() / 1000);
    const early = await new SignJWT({ tenant: 'acme', azp: 'agent-1', roles: [] })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject('alice')
      .setIssuer(stack.env.issuer.issuer)
      .setIssuedAt(now)
      .setNotBefore(now + 3)
      .setExpirationTime(now + 600)
      .sign(await importPKCS8(stack.env.issuer.privateKeyPem, 'EdDSA'));
    const [d] = await h.decisions('remedy-run', 1, { decisionId: 'remedy:early', identity: early });
    await h.client.send([d]);
    const dead = await deadLetterOf(d.decisionId);
    expect(JSON.parse(dead.value)).toMatchObject({ reasonCode: 'identity_invalid', decisionId: d.decisionId });
    // An unreadable decision had no token the parser could find: sent again, it could not
    // authenticate either. An unreadable intent can be sent again (here it is dead-lettered again).
    await h.produceRaw(h.topics.decisions, 'remedy-run', '{"not": "a decision"');
    let unreadableDecision: { partition: number; offset: string } | undefined;
    await h.waitUntil('the unreadable decision\'s dead letter', async () => {
      const r = (await readWholeTopic(stack.env.brokers, h.topics.decisionsDlq)).find((x) => x.value.includes('"reasonCode":"malformed_message"'));
      unreadableDecision = r && { partition: r.partition, offset: r.offset };
      return unreadableDecision !== undefined;
    });
    await h.produceRaw(h.topics.intents, 'remedy-run', '{"not": "an intent"');
    const malformed = async () => (await readWholeTopic(stack.env.brokers, h.topics.intentsDlq)).filter((r) => r.value.includes('"reasonCode":"malformed_message"'));
    let junk: { partition: number; offset: string } | undefined;
    await h.waitUntil('the unreadable message\'s dead letter', async () => {
      junk = (await malformed())[0];
      return junk !== undefined;
    });

    const notAdmin = await h.token({ principal: 'carol', tenant: 'acme' });
    const at = { dlq: 'decisions', partition: dead.partition, offset: dead.offset };
    expect(await api('POST', '/admin/dead-letters/redrive', notAdmin, at)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await api('POST', '/admin/dead-letters/redrive', olga, { ...at, offset: '999999' })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await api('POST', '/admin/dead-letters/redrive', olga, at)).toMatchObject({ status: 409, body: { error: 'decision_not_redrivable' } });
    expect(await api('POST', '/admin/dead-letters/redrive', olga, { dlq: 'decisions', ...unreadableDecision! })).toMatchObject({ status: 409, body: { error: 'decision_not_redrivable' } });

    // The unreadable intent is sent again once (and dead-lettered again, being still unreadable).
    const junkAt = { dlq: 'intents', partition: junk!.partition, offset: junk!.offset };
    expect(await api('POST', '/admin/dead-letters/redrive', olga, { ...junkAt, note: 'the parser was fixed' })).toMatchObject({
      status: 200,
      body: { disposition: 'redriven', sourceTopic: h.topics.intents },
    });
    expect(await api('POST', '/admin/dead-letters/redrive', olga, junkAt)).toMatchObject({ status: 409, body: { error: 'already_handled' } });
    await h.waitUntil('the re-driven message to come back to the DLQ', async () => (await malformed()).length === 2);

    expect(await api('POST', '/admin/dead-letters/discard', olga, { ...at, note: 'alice will resend it' })).toMatchObject({ status: 200, body: { disposition: 'discarded' } });
    expect(await api('POST', '/admin/dead-letters/discard', olga, at)).toMatchObject({ status: 409, body: { error: 'already_handled' } });
    expect(await h.query('SELECT disposition, decided_by FROM dead_letter_dispositions ORDER BY decided_at')).toEqual([
      { disposition: 'redriven', decided_by: 'olga' },
      { disposition: 'discarded', decided_by: 'olga' },
    ]);
  });

  it('releases a quarantined outbox row, which the relay then sends, and discards another, which it never sends', async () => {
    // Rows as the relay quarantines them (ADR 0004; its own specs prove the quarantine).
    const rows = await h.query<{ seq: string }>(
      `INSERT INTO outbox (topic, message_key, payload, quarantined_at, quarantine_reason)
       VALUES ($1, 'q-1', '{"quarantined":1}', now(), 'too_large: test'), ($1, 'q-2', '{"quarantined":2}', now(), 'too_large: test')
       RETURNING seq::text AS seq`,
      [h.topics.decisionsDlq],
    );
    const [release, discard] = rows.map((r) => r.seq);
    expect((await cli(stack.env, ['outbox', '--quarantined'])).out.quarantined).toHaveLength(2);
    expect(await api('POST', `/admin/outbox/${release}/release`, olga, { note: 'broker limit raised' })).toMatchObject({ status: 200, body: { seq: release } });
    expect(await api('POST', `/admin/outbox/${discard}/discard`, olga, {})).toMatchObject({ status: 200, body: { seq: discard } });
    expect(await api('POST', `/admin/outbox/${release}/release`, olga, {})).toMatchObject({ status: 409, body: { error: 'not_quarantined' } });
    expect(await api('POST', `/admin/outbox/${discard}/release`, olga, {})).toMatchObject({ status: 409, body: { error: 'not_quarantined' } });
    expect(await api('POST', '/admin/outbox/latest/release', olga, {})).toMatchObject({ status: 400 });

    // A published row is deleted (ADR 0048); the topic below shows it was sent, once.
    await h.waitUntil('the released row to be published', async () => (await h.query('SELECT 1 FROM outbox WHERE seq = $1', [release])).length === 0);
    const topic = await readWholeTopic(stack.env.brokers, h.topics.decisionsDlq);
    expect(topic.filter((r) => r.key === 'q-1')).toHaveLength(1);
    expect(topic.filter((r) => r.key === 'q-2')).toHaveLength(0);
    expect(await h.query('SELECT published_at, discarded_at IS NOT NULL AS discarded FROM outbox WHERE seq = $1', [discard])).toEqual([{ published_at: null, discarded: true }]);
    expect((await cli(stack.env, ['outbox', '--quarantined'])).out.quarantined).toEqual([]);

    const acts = (await h.query<{ entry: string }>(OPERATOR_ENTRIES_SQL)).map((r) => (JSON.parse(r.entry) as { action: { name: string; target: string } }).action);
    expect(acts.map((a) => a.name)).toEqual(['redrive_dead_letter', 'discard_dead_letter', 'release_quarantined', 'discard_quarantined']);
    expect(acts[2].target).toBe(`outbox/${release}`);
    const verify = await cli(stack.env, ['verify']);
    expect([verify.code, verify.out.intact]).toEqual([0, true]);
  });
});
