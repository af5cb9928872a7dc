import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, canonicalJsonWithCanonicalMember, compactJsonWithoutMember } from './canonical-json';

/** The authorizer's current signing key; keyId names it in the message for rotation. */
export type SigningKey = { keyId: string; privateKey: KeyObject };
/** keyId -> Ed25519 public key; holds the current and previous keys during a rotation. */
export type VerificationKeyring = ReadonlyMap<string, KeyObject>;

export type SignatureVerification = { ok: true; keyId: string } | { ok: false; detail: string };

// 64-byte Ed25519 signature = 86 base64url characters, unpadded.
const SIGNATURE_B64URL = /^[A-Za-z0-9_-]{86}$/;

function withoutSignature(message: Record<string, unknown>): Record<string, unknown> {
  const { signature: _ignored, ...body } = message;
  return body;
}

/**
 * Signs JCS(message without `signature`) with Ed25519 and returns a copy carrying
 * signature {keyId, value (base64url)}. An existing signature is replaced, never signed over.
 */
export function signCanonical<T extends Record<string, unknown>>(
  message: T,
  key: SigningKey,
): T & { signature: { keyId: string; value: string } } {
  return signCanonicalText(message, key).signed;
}

/**
 * signCanonical, with the signed message's wire text: its RFC 8785 form, the signed bytes with
 * the signature member spliced in. A verifier given that text checks the signature over the text
 * without its signature member, with no canonicalisation of its own (ADR 0091).
 */
export function signCanonicalText<T extends Record<string, unknown>>(
  message: T,
  key: SigningKey,
): { signed: T & { signature: { keyId: string; value: string } }; text: string } {
  if (typeof key?.keyId !== 'string' || key.keyId === '') throw new Error('signCanonical: keyId must be a non-empty string');
  if (key.privateKey?.type !== 'private' || key.privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error('signCanonical: privateKey must be an Ed25519 private KeyObject');
  }
  const body = withoutSignature(message);
  const bodyText = canonicalJson(body);
  const signature = { keyId: key.keyId, value: sign(null, Buffer.from(bodyText, 'utf8'), key.privateKey).toString('base64url') };
  return {
    signed: { ...body, signature } as T & { signature: { keyId: string; value: string } },
    text: canonicalJsonWithCanonicalMember(bodyText, 'signature', canonicalJson(signature)),
  };
}

/** One Ed25519 check the verification needs: `signature` over `data` with `key`. */
interface SignatureCheck {
  data: Buffer;
  key: KeyObject;
  signature: Buffer;
}

/**
 * The verification as steps: every Ed25519 check it needs is yielded to the caller, who answers
 * whether it held (at once, or from libuv's threadpool); everything else (the shape of the
 * signature, the key, the canonical text) is done here, the same for both. Throws only on a fault
 * the callers turn into a refusal.
 */
function* verification(message: Record<string, unknown>, keyring: VerificationKeyring, text: string | undefined): Generator<SignatureCheck, SignatureVerification, boolean> {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return { ok: false, detail: 'message is not a JSON object' };
  }
  const signature: unknown = message.signature;
  if (signature === undefined || signature === null) return { ok: false, detail: 'signature missing' };
  if (typeof signature !== 'object' || Array.isArray(signature)) {
    return { ok: false, detail: 'signature is not an object' };
  }
  const keys = Object.keys(signature).sort();
  if (keys.length !== 2 || keys[0] !== 'keyId' || keys[1] !== 'value') {
    return { ok: false, detail: 'signature must have exactly keyId and value' };
  }
  const { keyId, value } = signature as { keyId: unknown; value: unknown };
  if (typeof keyId !== 'string' || keyId === '') return { ok: false, detail: 'signature keyId is not a non-empty string' };
  const key = keyring.get(keyId);
  if (!key) return { ok: false, detail: `unknown signature keyId ${JSON.stringify(keyId)}` };
  if (typeof value !== 'string' || !SIGNATURE_B64URL.test(value)) {
    return { ok: false, detail: 'signature value is not a base64url Ed25519 signature' };
  }
  const bytes = Buffer.from(value, 'base64url');
  // Reject non-canonical spellings (stray low bits in the last character) of the same bytes.
  if (bytes.length !== 64 || bytes.toString('base64url') !== value) {
    return { ok: false, detail: 'signature value is not a base64url Ed25519 signature' };
  }
  const signedText = text === undefined ? undefined : compactJsonWithoutMember(text, 'signature');
  if (signedText !== undefined && (yield { data: Buffer.from(signedText, 'utf8'), key, signature: bytes })) return { ok: true, keyId };
  let canonical: string;
  try {
    canonical = canonicalJson(withoutSignature(message));
  } catch (err) {
    return { ok: false, detail: `message body has no canonical form: ${(err as Error).message}` };
  }
  // Already refused over these very bytes: no second check.
  if (canonical === signedText || !(yield { data: Buffer.from(canonical, 'utf8'), key, signature: bytes })) {
    return { ok: false, detail: `signature does not match message body (keyId ${JSON.stringify(keyId)})` };
  }
  return { ok: true, keyId };
}

const failed = (err: unknown): SignatureVerification => ({ ok: false, detail: `signature verification failed: ${err instanceof Error ? err.message : String(err)}` });

/**
 * Verifies a message signed by signCanonical against a keyring. Never throws: anything wrong
 * (including a body JCS cannot represent) is ok:false with a detail fit for a DLQ record.
 * `text`: the text `message` was parsed from. When it is the signer's wire text (signCanonicalText),
 * the signature is checked over it without its signature member, and the message is not
 * canonicalised: bytes the signature accepts are the bytes that were signed, and `message`, their
 * parse, holds nothing else (the signed body has no signature member, so the text has one). Any
 * other text (another producer's key order or spacing) falls back to canonicalising `message`.
 */
export function verifyCanonicalSignature(
  message: Record<string, unknown>,
  keyring: VerificationKeyring,
  text?: string,
): SignatureVerification {
  try {
    const steps = verification(message, keyring, text);
    for (let step = steps.next(); ; ) {
      if (step.done) return step.value;
      step = steps.next(verify(null, step.value.data, step.value.key, step.value.signature));
    }
  } catch (err) {
    return failed(err);
  }
}

/**
 * verifyCanonicalSignature with its Ed25519 checks on libuv's threadpool (node's `crypto.verify`
 * with a callback): the same verdicts, while the calling thread goes on. For a batch large enough
 * that spreading its checks over the machine's cores beats the hand-off (ADR 0093).
 */
export async function verifyCanonicalSignatureOffThread(
  message: Record<string, unknown>,
  keyring: VerificationKeyring,
  text?: string,
): Promise<SignatureVerification> {
  try {
    const steps = verification(message, keyring, text);
    for (let step = steps.next(); ; ) {
      if (step.done) return step.value;
      const { data, key, signature } = step.value;
      const held = await new Promise<boolean>((resolve, reject) => verify(null, data, key, signature, (e, ok) => (e ? reject(e) : resolve(ok))));
      step = steps.next(held);
    }
  } catch (err) {
    return failed(err);
  }
}
