import { generateEd25519KeyPair } from '@arvis/crypto';

export const KEY_KINDS = ['intent', 'checkpoint'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** Who holds which half, under the names the components read (docs/configuration.md, docs/keys.md). */
const VARIABLES = {
  intent: {
    signer: { who: 'authorizer', keyId: 'INTENT_SIGNING_KEY_ID', key: 'INTENT_SIGNING_KEY' },
    verifier: { who: 'dispatchers (merge with the keys they accept while rotating)', keys: 'INTENT_VERIFICATION_KEYS' },
  },
  checkpoint: {
    signer: { who: 'every process that may run the active relay (authorizer, dispatcher, relay)', keyId: 'JOURNAL_CHECKPOINT_SIGNING_KEY_ID', key: 'JOURNAL_CHECKPOINT_SIGNING_KEY' },
    verifier: { who: 'analysts (cli verify --from-topic / --against-topic; keep the old keys: old checkpoints stay signed by them)', keys: 'JOURNAL_CHECKPOINT_VERIFICATION_KEYS' },
  },
} as const;

export interface GeneratedKeys {
  kind: KeyKind;
  keyId: string;
  privateKeyPem: string;
  publicKeyPem: string;
  /** The signer's variables and the verifiers', exactly as the components parse them. */
  signer: { who: string; env: Record<string, string> };
  verifier: { who: string; env: Record<string, string> };
}

/** A key id that says what and when, so a rotation is readable in the intents and checkpoints. */
export const defaultKeyId = (kind: KeyKind, now = new Date()) => `${kind}-${now.toISOString().slice(0, 10)}`;

export function generateKeys(kind: KeyKind, keyId: string = defaultKeyId(kind)): GeneratedKeys {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();
  const v = VARIABLES[kind];
  return {
    kind,
    keyId,
    privateKeyPem,
    publicKeyPem,
    signer: { who: v.signer.who, env: { [v.signer.keyId]: keyId, [v.signer.key]: privateKeyPem } },
    verifier: { who: v.verifier.who, env: { [v.verifier.keys]: JSON.stringify({ [keyId]: publicKeyPem }) } },
  };
}

/** POSIX single quotes: the value verbatim, newlines included. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `export NAME='value'` lines a shell can eval, each half under a comment saying who gets it. */
export function renderKeys(k: GeneratedKeys): string[] {
  const lines = (env: Record<string, string>) => Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [`# ${k.kind} key ${k.keyId}: the private half, for the ${k.signer.who} only`, ...lines(k.signer.env), `# the public half, for the ${k.verifier.who}`, ...lines(k.verifier.env)];
}
