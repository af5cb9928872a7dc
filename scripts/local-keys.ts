// Local keys for the demo and the tests (created once under .data/keys.json): the authorizer's
// intent-signing key, the dispatcher's verification key, a demo identity issuer, and the journal
// checkpoint key pair (its public half is what analysts get).
// Production supplies its own keys through the same environment variables.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateEd25519KeyPair } from '@arvis/crypto';

export interface LocalKeys {
  intent: { keyId: string; privateKeyPem: string; publicKeyPem: string };
  issuer: { issuer: string; privateKeyPem: string; publicKeyPem: string };
  checkpoint: { keyId: string; privateKeyPem: string; publicKeyPem: string };
}

export function localKeys(dataDir: string): LocalKeys {
  const file = join(dataDir, 'keys.json');
  const existing = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalKeys>) : undefined;
  if (existing?.intent && existing.issuer && existing.checkpoint) return existing as LocalKeys;
  mkdirSync(dataDir, { recursive: true });
  // A file from before a key existed keeps its keys and gains the missing ones.
  const k: LocalKeys = {
    intent: existing?.intent ?? { keyId: 'local-authorizer-1', ...generateEd25519KeyPair() },
    issuer: existing?.issuer ?? { issuer: 'https://idp.local.arvis', ...generateEd25519KeyPair() },
    checkpoint: existing?.checkpoint ?? { keyId: 'local-journal-1', ...generateEd25519KeyPair() },
  };
  writeFileSync(file, JSON.stringify(k, null, 2), { mode: 0o600 });
  return k;
}

/** The `aud` of the local issuer's operator (admin) tokens. */
export const LOCAL_ADMIN_AUDIENCE = 'arvis-admin';

/** The environment variables that hand these keys to the services and the demo producer. */
export function localKeyEnv(k: LocalKeys): Record<string, string> {
  return {
    INTENT_SIGNING_KEY_ID: k.intent.keyId,
    INTENT_SIGNING_KEY: k.intent.privateKeyPem,
    INTENT_VERIFICATION_KEYS: JSON.stringify({ [k.intent.keyId]: k.intent.publicKeyPem }),
    // The demo issuer speaks for any tenant: the demo and the tests use several. Its admin tokens
    // carry LOCAL_ADMIN_AUDIENCE: in production the admin API takes only an issuer's admin audience.
    TRUSTED_ISSUERS: JSON.stringify([{ issuer: k.issuer.issuer, alg: 'EdDSA', publicKey: k.issuer.publicKeyPem, tenants: ['*'], audience: { admin: [LOCAL_ADMIN_AUDIENCE] } }]),
    JOURNAL_CHECKPOINT_SIGNING_KEY_ID: k.checkpoint.keyId,
    JOURNAL_CHECKPOINT_SIGNING_KEY: k.checkpoint.privateKeyPem,
    JOURNAL_CHECKPOINT_VERIFICATION_KEYS: JSON.stringify({ [k.checkpoint.keyId]: k.checkpoint.publicKeyPem }),
    DEMO_ISSUER: k.issuer.issuer,
    DEMO_ISSUER_KEY: k.issuer.privateKeyPem,
  };
}
