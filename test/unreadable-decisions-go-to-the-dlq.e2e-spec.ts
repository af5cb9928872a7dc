import { sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

describe('unreadable decisions go to the dead-letter topic and the consumer moves on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  it('dead-letters each kind of unreadable message with its reason, then still handles a good decision', async () => {
    const [good] = await h.decisions('poison-run', 1);
    const base = { specVersion: 1, ...good };
    const poison: [string, string | Buffer | null, string][] = [
      ['bytes', Buffer.from([0xff, 0xfe, 0x00, 0x81]), 'malformed_message'],
      ['not json', '{"decisionId": nope', 'malformed_message'],
      ['wrong shape', JSON.stringify({ specVersion: 1, hello: 'world' }), 'malformed_message'],
      ['unknown specVersion', JSON.stringify({ ...base, specVersion: 2, decisionId: 'p-v2' }), 'unsupported_spec_version'],
      ['too large', JSON.stringify({ ...base, decisionId: 'p-big', payload: { text: 'x'.repeat(300 * 1024) } }), 'payload_too_large'],
      ['integer beyond 2^53', JSON.stringify({ ...base, decisionId: 'p-int' }).replace('"riskScore":0.1', '"riskScore":0.1,"payloadN":9007199254740993'), 'malformed_message'],
      ['retry from outside', JSON.stringify({ ...base, decisionId: 'p-retry', retry: { attempt: 1, chainId: 'x', parentCausalId: 'y' } }), 'malformed_message'],
      // The system's retries take ids in this namespace; nobody else may take one first.
      ['an id in the system namespace', JSON.stringify({ ...base, decisionId: `arvis.retry.${'a'.repeat(40)}.1` }), 'malformed_message'],
      ['empty', null, 'malformed_message'],
      // Valid JSON, but a lone surrogate has no canonical (RFC 8785) form.
      // JSON.parse would keep the last "text"; what the sender meant may be the first.
      ['duplicate key', JSON.stringify({ ...base, decisionId: 'p-dup' }).replace('"text":"note 0"', '"text":"note 0","text":"other"'), 'malformed_message'],
      ['lone surrogate', JSON.stringify({ ...base, decisionId: 'p-surrogate' }).replace('"text":"note 0"', '"text":"\\ud800"'), 'malformed_message'],
    ];
    const at: { label: string; partition: number; offset: string; reason: string }[] = [];
    for (const [label, value, reason] of poison) {
      at.push({ label, reason, ...(await h.produceRaw(h.topics.decisions, good.runId, value)) });
    }
    await h.client.send([good]);

    await h.waitUntil('the good decision to complete', async () => (await h.finalRows([good.decisionId])).length === 1);
    const found = (p: (typeof at)[number]) =>
      h.journal.deadLetters.find((r) => r.sourceTopic === h.topics.decisions && r.partition === p.partition && r.offset === p.offset);
    await h.journal.waitFor(() => at.every((p) => found(p)), 30_000);
    for (const p of at) {
      expect({ label: p.label, reason: found(p)?.reasonCode }).toEqual({ label: p.label, reason: p.reason });
    }
    // Nothing from the poison reached the inbox or ran.
    const inbox = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM decision_inbox WHERE decision_id IN ('arvis.retry.${'a'.repeat(40)}.1','p-v2','p-big','p-int','p-retry','p-surrogate','p-dup')`,
    );
    expect(inbox[0].n).toBe('0');
  });
});
