// Local keys for the demo and the tests (created once under .data/keys.json): the authorizer's
// intent-signing key, the dispatcher's verification key, and a demo identity issuer.
// Production supplies its own keys through the same environment variables.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateEd25519KeyPair } from '@arvis/crypto';

export interface LocalKeys {
  intent: { keyId: string; privateKeyPem: string; publicKeyPem: string };
  issuer: { issuer: string; privateKeyPem: string; publicKeyPem: string };
}

export function localKeys(dataDir: string): LocalKeys {
  const file = join(dataDir, 'keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalKeys;
  mkdirSync(dataDir, { recursive: true });
  const k: LocalKeys = {
    intent: { keyId: 'local-authorizer-1', ...generateEd25519KeyPair() },
    issuer: { issuer: 'https://idp.local.arvis', ...generateEd25519KeyPair() },
  };
  writeFileSync(file, JSON.stringify(k, null, 2), { mode: 0o600 });
  return k;
}

/** The environment variables that hand these keys to the services and the demo producer. */
export function localKeyEnv(k: LocalKeys): Record<string, string> {
  return {
    INTENT_SIGNING_KEY_ID: k.intent.keyId,
    INTENT_SIGNING_KEY: k.intent.privateKeyPem,
    INTENT_VERIFICATION_KEYS: JSON.stringify({ [k.intent.keyId]: k.intent.publicKeyPem }),
    TRUSTED_ISSUERS: JSON.stringify([{ issuer: k.issuer.issuer, alg: 'EdDSA', publicKey: k.issuer.publicKeyPem }]),
    DEMO_ISSUER: k.issuer.issuer,
    DEMO_ISSUER_KEY: k.issuer.privateKeyPem,
  };
}
