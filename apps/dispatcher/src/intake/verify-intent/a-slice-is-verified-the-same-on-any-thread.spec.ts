import { generateEd25519KeyPair, loadEd25519PrivateKey, loadEd25519PublicKey, signCanonicalText } from '@arvis/crypto';
import type { InboundMessage } from '@arvis/kafka';
import { OFF_THREAD_FROM, verifyIntentMessages } from './verify-intent-messages';

// A large slice's signatures are checked on libuv's threadpool, a small one's on the dispatcher's
// thread (ADR 0093). Where they run must change nothing: the same messages verified, the same ones
// dead-lettered with the same reason, in the slice's order.
const h = (c: string) => c.repeat(64);
const pair = () => {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();
  return { privateKey: loadEd25519PrivateKey(privateKeyPem), publicKey: loadEd25519PublicKey(publicKeyPem) };
};
const genuine = pair();
const forger = pair();
const keyring = new Map([['authorizer-1', genuine.publicKey]]);

function intent(i: number, key = genuine.privateKey): string {
  const unsigned = {
    specVersion: 1,
    intentId: `i-${i}`,
    capabilityId: `cap-${i}`,
    decisionId: `d-${i}`,
    runId: 'run-1',
    causalId: `c-${i}`,
    tenant: 'acme',
    tool: 'notes.append',
    intentCommitment: h('3'),
    payloadSha256: h('4'),
    effectContextCommitment: h('5'),
    idempotencyKey: `idem:${h('6')}`,
    catalogFingerprint: h('7'),
    receipt: { receiptId: `r-${i}`, runId: 'run-1', causalId: `c-${i}`, intentSha256: h('1'), durablePosition: String(i), storeFingerprint: h('2'), committedAt: '2026-12-05T10:00:00.000Z' },
  };
  return signCanonicalText(unsigned, { keyId: 'authorizer-1', privateKey: key }).text;
}

/** Every fifth forged, every seventh altered after signing, every eleventh not JSON. */
function slice(n: number): InboundMessage[] {
  return Array.from({ length: n }, (_, i) => {
    let value = i % 5 === 1 ? intent(i, forger.privateKey) : intent(i);
    if (i % 7 === 3) value = value.replace('"notes.append"', '"mail.send"');
    if (i % 11 === 4) value = `not json ${i}`;
    return { topic: 'arvis.intents', partition: 0, offset: String(i), key: 'run-1', value: Buffer.from(value), headers: {}, timestamp: '0' };
  });
}

const opts = { keyring, maxBytes: 65_536, dlqTopic: 'arvis.intents.dlq', receivedAt: new Date('2026-12-05T10:00:01Z'), maxRawBytes: 4096 };
const summary = (r: Awaited<ReturnType<typeof verifyIntentMessages>>) => ({
  verified: r.verified.map((v) => v.intent.intentId),
  deadLetters: r.deadLetters.map((d) => [d.key, (JSON.parse(d.payload) as { reasonCode: string }).reasonCode]),
});

describe('verifyIntentMessages', () => {
  it.each([OFF_THREAD_FROM - 1, OFF_THREAD_FROM, 200])('gives a slice of %i messages the same verdicts, in order, on the threadpool as on its own thread', async (n) => {
    const messages = slice(n);
    const here = summary(await verifyIntentMessages(messages, { ...opts, offThreadFrom: Infinity }));
    const pooled = summary(await verifyIntentMessages(messages, { ...opts, offThreadFrom: 1 }));
    expect(pooled).toEqual(here);
    expect(await verifyIntentMessages(messages, opts).then(summary)).toEqual(here);
    // What the slice holds: the genuine intents verified, the rest refused for what they are.
    const expected = messages.map((_, i) => (i % 11 === 4 ? 'malformed' : i % 5 === 1 || i % 7 === 3 ? 'untrusted' : 'ok'));
    expect(here.verified).toEqual(messages.flatMap((_, i) => (expected[i] === 'ok' ? [`i-${i}`] : [])));
    expect(here.deadLetters.map(([, reason]) => (reason === 'untrusted_tool_authorization_outcome' ? 'untrusted' : 'malformed'))).toEqual(expected.filter((e) => e !== 'ok'));
  });
});
