import { generateKeyPairSync } from 'node:crypto';
import { generateEd25519KeyPair, loadEd25519PrivateKey, loadEd25519PublicKey } from './ed25519-keys';

function pemBodyBase64(pem: string): string {
  return pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
}

describe('Ed25519 key loading', () => {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();

  it('generates PEM pkcs8 / spki pairs', () => {
    expect(privateKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
    expect(publicKeyPem).toContain('-----BEGIN PUBLIC KEY-----');
  });

  it('loads PEM', () => {
    expect(loadEd25519PrivateKey(privateKeyPem).asymmetricKeyType).toBe('ed25519');
    expect(loadEd25519PublicKey(publicKeyPem).type).toBe('public');
  });

  it('loads base64 of the DER (one env-var line), standard or url alphabet', () => {
    const priv = loadEd25519PrivateKey(pemBodyBase64(privateKeyPem));
    const pub = loadEd25519PublicKey(pemBodyBase64(publicKeyPem));
    expect(priv.type).toBe('private');
    expect(pub.export({ format: 'der', type: 'spki' }).toString('base64')).toBe(pemBodyBase64(publicKeyPem));
    const urlForm = Buffer.from(pemBodyBase64(publicKeyPem), 'base64').toString('base64url');
    expect(loadEd25519PublicKey(urlForm).type).toBe('public');
  });

  it('loads PEM with escaped newlines (as pasted into .env files)', () => {
    expect(loadEd25519PublicKey(publicKeyPem.replace(/\n/g, '\\n')).type).toBe('public');
  });

  it('refuses non-Ed25519 keys with a clear error', () => {
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    expect(() => loadEd25519PrivateKey(ec.privateKey)).toThrow(/got a ec key, only ed25519/);
    expect(() => loadEd25519PublicKey(ec.publicKey)).toThrow(/got a ec key, only ed25519/);
    const ed448 = generateKeyPairSync('ed448', { publicKeyEncoding: { type: 'spki', format: 'pem' } });
    expect(() => loadEd25519PublicKey(ed448.publicKey as unknown as string)).toThrow(/ed448/);
  });

  it('refuses the wrong half of the pair', () => {
    expect(() => loadEd25519PublicKey(privateKeyPem)).toThrow(/PRIVATE KEY/);
    expect(() => loadEd25519PrivateKey(publicKeyPem)).toThrow(/private key/i);
    expect(() => loadEd25519PublicKey(pemBodyBase64(privateKeyPem))).toThrow(/spki/);
  });

  it('refuses garbage', () => {
    expect(() => loadEd25519PrivateKey('')).toThrow(/empty/);
    expect(() => loadEd25519PrivateKey('not a key!')).toThrow(/neither PEM nor base64/);
    expect(() => loadEd25519PublicKey('AAAA')).toThrow(/spki/);
    expect(() => loadEd25519PublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toThrow(/unreadable PEM/);
  });
});
