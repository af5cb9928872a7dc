import { verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { signCanonical, signCanonicalText, verifyCanonicalSignature, verifyCanonicalSignatureOffThread, type SigningKey } from './canonical-signature';
import { generateEd25519KeyPair, loadEd25519PrivateKey, loadEd25519PublicKey } from './ed25519-keys';

function keyPair(keyId: string): { signing: SigningKey; publicKey: KeyObject } {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();
  return { signing: { keyId, privateKey: loadEd25519PrivateKey(privateKeyPem) }, publicKey: loadEd25519PublicKey(publicKeyPem) };
}

describe('signCanonical / verifyCanonicalSignature', () => {
  const k1 = keyPair('authorizer-2025-01');
  const k2 = keyPair('authorizer-2025-06');
  const keyring = new Map([[k1.signing.keyId, k1.publicKey]]);
  const intent = {
    specVersion: 1,
    intentId: 'i-1',
    runId: 'r-1',
    tool: 'email.send',
    payloadSha256: 'a'.repeat(64),
    receipt: { receiptId: 'rc-1', durablePosition: '42' },
  };

  it('round-trips and reports the keyId', () => {
    const signed = signCanonical(intent, k1.signing);
    expect(signed.signature.keyId).toBe('authorizer-2025-01');
    expect(signed.signature.value).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifyCanonicalSignature(signed, keyring)).toEqual({ ok: true, keyId: 'authorizer-2025-01' });
  });

  it('does not mutate its input, and survives a JSON round trip with other key order', () => {
    const signed = signCanonical(intent, k1.signing);
    expect(intent).not.toHaveProperty('signature');
    const wire = JSON.parse(JSON.stringify({ signature: signed.signature, ...intent }));
    expect(verifyCanonicalSignature(wire, keyring).ok).toBe(true);
  });

  it('signs JCS(message without signature), replacing any existing signature', () => {
    const signed = signCanonical(intent, k1.signing);
    const bytes = Buffer.from(signed.signature.value, 'base64url');
    expect(verify(null, Buffer.from(canonicalJson(intent), 'utf8'), k1.publicKey, bytes)).toBe(true);
    // Re-signing ignores the old signature (Ed25519 is deterministic, so the value is equal).
    expect(signCanonical(signed, k1.signing).signature).toEqual(signed.signature);
    expect(signCanonical(signed, k2.signing).signature.keyId).toBe(k2.signing.keyId);
  });

  it.each<[string, (m: Record<string, unknown>) => Record<string, unknown>]>([
    ['top-level field changed', (m) => ({ ...m, tool: 'email.delete' })],
    ['payloadSha256 changed', (m) => ({ ...m, payloadSha256: 'b'.repeat(64) })],
    ['nested field changed', (m) => ({ ...m, receipt: { ...(m.receipt as object), durablePosition: '43' } })],
    ['field added', (m) => ({ ...m, retry: { attempt: 1 } })],
    ['field removed', (m) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'runId'))],
    ['specVersion type changed', (m) => ({ ...m, specVersion: '1' })],
  ])('detects tampering: %s', (_label, tamper) => {
    const tampered = tamper(signCanonical(intent, k1.signing));
    const result = verifyCanonicalSignature(tampered, keyring);
    expect(result).toEqual({ ok: false, detail: expect.stringMatching(/does not match/) });
  });

  it('detects every single-field change', () => {
    const signed = signCanonical(intent, k1.signing) as Record<string, unknown>;
    for (const field of Object.keys(intent)) {
      const tampered = { ...signed, [field]: 'tampered' };
      expect(verifyCanonicalSignature(tampered, keyring).ok).toBe(false);
    }
  });

  it('detects a keyId swapped to another trusted key', () => {
    const signed = signCanonical(intent, k1.signing);
    const both = new Map([
      [k1.signing.keyId, k1.publicKey],
      [k2.signing.keyId, k2.publicKey],
    ]);
    const swapped = { ...signed, signature: { ...signed.signature, keyId: k2.signing.keyId } };
    expect(verifyCanonicalSignature(swapped, both)).toMatchObject({ ok: false, detail: expect.stringMatching(/does not match/) });
  });

  it('supports rotation: a keyring with two keys verifies messages from both', () => {
    const both = new Map([
      [k1.signing.keyId, k1.publicKey],
      [k2.signing.keyId, k2.publicKey],
    ]);
    expect(verifyCanonicalSignature(signCanonical(intent, k1.signing), both)).toEqual({ ok: true, keyId: k1.signing.keyId });
    expect(verifyCanonicalSignature(signCanonical(intent, k2.signing), both)).toEqual({ ok: true, keyId: k2.signing.keyId });
  });

  it('refuses an unknown keyId (e.g. a retired key)', () => {
    const result = verifyCanonicalSignature(signCanonical(intent, k2.signing), keyring);
    expect(result).toEqual({ ok: false, detail: 'unknown signature keyId "authorizer-2025-06"' });
  });

  it('refuses a forged signature made with an untrusted key under a trusted keyId', () => {
    const forger = keyPair(k1.signing.keyId);
    expect(verifyCanonicalSignature(signCanonical(intent, forger.signing), keyring)).toMatchObject({ ok: false });
  });

  it.each<[string, unknown, RegExp]>([
    ['missing', undefined, /signature missing/],
    ['null', null, /signature missing/],
    ['a string', 'abc', /not an object/],
    ['extra member', { keyId: 'authorizer-2025-01', value: 'x'.repeat(86), alg: 'none' }, /exactly keyId and value/],
    ['empty keyId', { keyId: '', value: 'x'.repeat(86) }, /keyId/],
    ['value not a string', { keyId: 'authorizer-2025-01', value: 42 }, /base64url/],
    ['value too short', { keyId: 'authorizer-2025-01', value: 'abc' }, /base64url/],
    ['value standard base64', { keyId: 'authorizer-2025-01', value: '+'.repeat(86) }, /base64url/],
    ['value with non-canonical last char', { keyId: 'authorizer-2025-01', value: 'A'.repeat(85) + 'B' }, /base64url/],
  ])('refuses a malformed signature: %s', (_label, signature, detail) => {
    const message = signature === undefined ? { ...intent } : { ...intent, signature };
    const result = verifyCanonicalSignature(message, keyring);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).toMatch(detail);
  });

  it('never throws, even for bodies JCS cannot represent or a broken keyring entry', () => {
    const signed = signCanonical(intent, k1.signing);
    expect(verifyCanonicalSignature({ ...signed, bad: undefined }, keyring)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no canonical form/),
    });
    expect(verifyCanonicalSignature(null as unknown as Record<string, unknown>, keyring)).toMatchObject({ ok: false });
    const broken = new Map([[k1.signing.keyId, {} as KeyObject]]);
    expect(verifyCanonicalSignature(signed, broken)).toMatchObject({ ok: false });
  });

  it('signCanonical refuses a non-Ed25519 key or empty keyId', () => {
    expect(() => signCanonical(intent, { keyId: '', privateKey: k1.signing.privateKey })).toThrow(/keyId/);
    expect(() => signCanonical(intent, { keyId: 'x', privateKey: k1.publicKey })).toThrow(/Ed25519 private/);
  });

  describe('with the wire text (ADR 0091)', () => {
    const nested = { ...intent, payload: { signature: 'not the one', list: ['"signature":', { z: '}' }] }, runId: '\u20ac\ud83d\ude00' };

    it('signCanonicalText gives the signed message and its canonical text', () => {
      const { signed, text } = signCanonicalText(nested, k1.signing);
      expect(signed).toEqual(signCanonical(nested, k1.signing));
      expect(text).toBe(canonicalJson(signed));
      expect(JSON.parse(text)).toEqual(signed);
    });

    it('verifies the text as it came, without canonicalising the message', () => {
      const { text } = signCanonicalText(nested, k1.signing);
      // A message JCS cannot represent: only a check over the text itself can accept it.
      const unrepresentable = { ...JSON.parse(text), extra: 1n } as Record<string, unknown>;
      expect(verifyCanonicalSignature(unrepresentable, keyring)).toMatchObject({ ok: false, detail: expect.stringMatching(/no canonical form/) });
      expect(verifyCanonicalSignature(unrepresentable, keyring, text)).toEqual({ ok: true, keyId: k1.signing.keyId });
    });

    it('still verifies another producer\'s spelling of a signed message, by canonicalising it', () => {
      const signed = signCanonical(nested, k1.signing);
      for (const text of [JSON.stringify({ signature: signed.signature, ...nested }), JSON.stringify(signed, null, 2)]) {
        expect(verifyCanonicalSignature(JSON.parse(text) as Record<string, unknown>, keyring, text)).toEqual({ ok: true, keyId: k1.signing.keyId });
      }
    });

    it.each<[string, (text: string) => string]>([
      ['a field changed in the text', (t) => t.replace('"tool":"email.send"', '"tool":"email.drop"')],
      ['a member added after the signature', (t) => `${t.slice(0, -1)},"retry":{"attempt":1}}`],
      // The parse keeps the last one, another message's: neither the text nor the parse verifies.
      ['a second signature member', (t) => `${t.slice(0, -1)},"signature":${JSON.stringify(signCanonical({ ...intent, tool: 'x' }, k1.signing).signature)}}`],
    ])('refuses %s', (_label, tamper) => {
      const text = tamper(signCanonicalText(nested, k1.signing).text);
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new Error(`the tampered text is not JSON: ${text}`);
      }
      expect(verifyCanonicalSignature(message, keyring, text).ok).toBe(false);
    });
  });

  describe('off the calling thread (ADR 0093)', () => {
    const { signed, text } = signCanonicalText(intent, k1.signing);
    const forged = signCanonical(intent, keyPair(k1.signing.keyId).signing);
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ['its wire text', signed, text],
      ['no text', signed, undefined],
      ['another spelling', signed, JSON.stringify(signed, null, 2)],
      ['a changed field', { ...signed, tool: 'email.drop' }, undefined],
      ['a changed text', JSON.parse(text.replace('email.send', 'email.drop')) as Record<string, unknown>, text.replace('email.send', 'email.drop')],
      ['a key it does not know', signCanonical(intent, k2.signing), undefined],
      ['a forger\'s key under a known keyId', forged, canonicalJson(forged)],
      ['no signature', { ...intent }, undefined],
      ['a body JCS cannot represent', { ...signed, n: 1n }, undefined],
    ];

    it.each(cases)('gives the same verdict as on the calling thread for %s', async (_label, message, wire) => {
      const here = verifyCanonicalSignature(message, keyring, wire);
      await expect(verifyCanonicalSignatureOffThread(message, keyring, wire)).resolves.toEqual(here);
    });

    it('accepts the genuine and refuses the forged among many checked at once', async () => {
      const verdicts = await Promise.all(Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? verifyCanonicalSignatureOffThread(forged, keyring) : verifyCanonicalSignatureOffThread(signed, keyring, text))));
      expect(verdicts.map((v) => v.ok)).toEqual(Array.from({ length: 64 }, (_, i) => i % 3 !== 0));
    });
  });
});
