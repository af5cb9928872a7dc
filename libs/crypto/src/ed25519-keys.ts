import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * Keys arrive from configuration (env vars, mounted secrets). Accept PEM text, or the base64
 * of the DER (pkcs8 for private, spki for public) because that fits on one env-var line.
 * A literal "\n" sequence inside PEM (common when PEM is pasted into .env files) is unescaped.
 */
function decode(input: string, kind: 'private' | 'public'): KeyObject {
  if (typeof input !== 'string' || input.trim() === '') {
    throw new Error(`Ed25519 ${kind} key: empty input`);
  }
  const text = input.trim();
  if (text.includes('-----BEGIN')) {
    const pem = text.includes('\\n') ? text.replace(/\\n/g, '\n') : text;
    if (kind === 'public' && /PRIVATE KEY-----/.test(pem)) {
      // createPublicKey would quietly derive the public half; a private key in a keyring is a
      // configuration mistake that should be noticed, not accepted.
      throw new Error('Ed25519 public key: got a PRIVATE KEY PEM; configure the public key (spki) instead');
    }
    try {
      return kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
    } catch (err) {
      throw new Error(`Ed25519 ${kind} key: unreadable PEM (${(err as Error).message})`);
    }
  }
  const b64 = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) {
    throw new Error(`Ed25519 ${kind} key: neither PEM nor base64`);
  }
  const der = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  try {
    return kind === 'private'
      ? createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
      : createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch (err) {
    const expected = kind === 'private' ? 'pkcs8' : 'spki';
    throw new Error(`Ed25519 ${kind} key: base64 is not ${expected} DER (${(err as Error).message})`);
  }
}

function requireEd25519(key: KeyObject, kind: 'private' | 'public'): KeyObject {
  if (key.type !== kind) throw new Error(`Ed25519 ${kind} key: got a ${key.type} key`);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`Ed25519 ${kind} key: got a ${key.asymmetricKeyType ?? 'unknown'} key, only ed25519 is accepted`);
  }
  return key;
}

export function loadEd25519PrivateKey(pemOrBase64: string): KeyObject {
  return requireEd25519(decode(pemOrBase64, 'private'), 'private');
}

export function loadEd25519PublicKey(pemOrBase64: string): KeyObject {
  return requireEd25519(decode(pemOrBase64, 'public'), 'public');
}

/** For tests, dev setup and key rotation scripts. */
export function generateEd25519KeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}
