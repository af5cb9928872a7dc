// Prints `export NAME='value'` lines with local keys (created once under .data/keys.json): the
// authorizer's intent-signing key, the dispatcher's verification key, and a demo identity
// issuer. For the demo and the tests only; production supplies its own keys.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateEd25519KeyPair } from '@arvis/effect-context';

const dir = join(__dirname, '..', '..', '.data');
const file = join(dir, 'keys.json');

interface LocalKeys {
  intent: { keyId: string; privateKeyPem: string; publicKeyPem: string };
  issuer: { issuer: string; privateKeyPem: string; publicKeyPem: string };
}

function keys(): LocalKeys {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalKeys;
  mkdirSync(dir, { recursive: true });
  const k: LocalKeys = {
    intent: { keyId: 'local-authorizer-1', ...generateEd25519KeyPair() },
    issuer: { issuer: 'https://idp.local.arvis', ...generateEd25519KeyPair() },
  };
  writeFileSync(file, JSON.stringify(k, null, 2), { mode: 0o600 });
  return k;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const k = keys();
const vars: Record<string, string> = {
  INTENT_SIGNING_KEY_ID: k.intent.keyId,
  INTENT_SIGNING_KEY: k.intent.privateKeyPem,
  INTENT_VERIFICATION_KEYS: JSON.stringify({ [k.intent.keyId]: k.intent.publicKeyPem }),
  TRUSTED_ISSUERS: JSON.stringify([{ issuer: k.issuer.issuer, alg: 'EdDSA', publicKey: k.issuer.publicKeyPem }]),
  DEMO_ISSUER: k.issuer.issuer,
  DEMO_ISSUER_KEY: k.issuer.privateKeyPem,
};
for (const [name, value] of Object.entries(vars)) console.log(`export ${name}=${q(value)}`);
