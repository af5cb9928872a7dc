import { generateEd25519KeyPair, loadEd25519PrivateKey, signCanonical } from '@arvis/crypto';
import { localKeys } from '../scripts/local-keys';
import { groupOf, sharedEnvironment } from './support/environment';
import { DATA } from './support/services';
import { Harness } from './support/harness';

describe('an intent not signed by the authorizer runs nothing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  it('dead-letters a forged or altered intent and never touches the capability or the journal', async () => {
    // A genuine decision whose intent we copy; its capability is consumed once by the real path.
    const [d] = await h.decisions('forgery-run', 1);
    await h.client.send([d]);
    await h.waitUntil('the genuine outcome', async () => (await h.finalRows([d.decisionId])).length === 1);
    const [row] = await h.query<{ payload: string }>(
      // The signed message as published; its outbox row is deleted once sent (ADR 0048).
      `SELECT message AS payload FROM intents WHERE decision_id = $1`,
      [d.decisionId],
    );
    const genuine = JSON.parse(row.payload) as Record<string, unknown>;
    const journalBefore = await h.query<{ n: string }>('SELECT count(*)::text AS n FROM journal');

    const { signature: _sig, ...unsigned } = genuine;
    const foreignKey = { keyId: (genuine.signature as { keyId: string }).keyId, privateKey: loadEd25519PrivateKey(generateEd25519KeyPair().privateKeyPem) };
    // The authorizer's real key over a body that is not the stored intent (another payload hash).
    const realKey = { keyId: foreignKey.keyId, privateKey: loadEd25519PrivateKey(localKeys(DATA).intent.privateKeyPem) };
    const cases: [string, unknown][] = [
      ['unsigned', unsigned],
      ['signed by another key', signCanonical(unsigned, foreignKey)],
      ['altered after signing', { ...genuine, tool: 'ledger.transfer' }],
      ['validly signed, not the stored intent', signCanonical({ ...unsigned, payloadSha256: 'e'.repeat(64) }, realKey)],
    ];
    const at: { label: string; partition: number; offset: string }[] = [];
    for (const [label, msg] of cases) at.push({ label, ...(await h.produceRaw(h.topics.intents, d.runId, JSON.stringify(msg))) });
    const last = at[at.length - 1];
    await h.waitForGroupPast(groupOf(h.env, 'dispatcher'), h.topics.intents, last.partition, last.offset);
    await h.journal.waitFor(() => at.every((p) => h.journal.deadLetters.some((r) => r.sourceTopic === h.topics.intents && r.offset === p.offset)), 30_000);
    for (const p of at) {
      const dlq = h.journal.deadLetters.find((r) => r.sourceTopic === h.topics.intents && r.offset === p.offset && r.partition === p.partition);
      expect({ label: p.label, reason: dlq?.reasonCode }).toEqual({ label: p.label, reason: 'untrusted_tool_authorization_outcome' });
    }
    const notes = await h.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1',
      [d.decisionId],
    );
    expect(notes[0].n).toBe('1');
    expect((await h.query<{ n: string }>('SELECT count(*)::text AS n FROM journal'))[0].n).toBe(journalBefore[0].n);
  });
});
