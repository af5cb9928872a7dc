import { spawnSync } from 'node:child_process';
import { loadEd25519PrivateKey, loadEd25519PublicKey, signCanonical, verifyCanonicalSignature } from '@arvis/crypto';
import { loadAuthorizerConfig } from '../../../authorizer/src/config/authorizer.config';
import { loadDispatcherConfig } from '../../../dispatcher/src/config/dispatcher.config';
import { loadRelayConfig } from '../../../relay/src/relay.config';
import { loadCliConfig } from '../cli.config';
import { parseCommandLine, UsageError } from '../cli-args';
import { defaultKeyId, generateKeys, renderKeys } from './generate-keys';

/** The printed lines evaluated by bash, as an operator would: the variables they set. */
function evaluated(lines: string[], names: string[]): Record<string, string> {
  const script = `eval "$1"; "$2" -e 'const n = JSON.parse(process.argv[1]); console.log(JSON.stringify(Object.fromEntries(n.map((k) => [k, process.env[k]]))))' '${JSON.stringify(names)}'`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script, '_', lines.join('\n'), process.execPath], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return JSON.parse(r.stdout) as Record<string, string>;
}

const DB = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec' };
const message = { intentId: 'i-1', tool: 'notes.append', payloadSha256: 'a'.repeat(64) };

describe('arvis keys generate', () => {
  it('prints an intent pair the authorizer and the dispatchers accept, whose halves sign and verify', () => {
    const keys = generateKeys('intent', 'intent-2026-12');
    const env = evaluated(renderKeys(keys), ['INTENT_SIGNING_KEY_ID', 'INTENT_SIGNING_KEY', 'INTENT_VERIFICATION_KEYS']);
    const authorizer = loadAuthorizerConfig({
      ...DB,
      TRUST_PROXY: 'false',
      TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example', alg: 'EdDSA', publicKey: generateKeys('intent').publicKeyPem, tenants: ['*'] }]),
      INTENT_SIGNING_KEY_ID: env.INTENT_SIGNING_KEY_ID,
      INTENT_SIGNING_KEY: env.INTENT_SIGNING_KEY,
    });
    const dispatcher = loadDispatcherConfig({ ...DB, INTENT_VERIFICATION_KEYS: env.INTENT_VERIFICATION_KEYS });
    expect(authorizer.signing.keyId).toBe('intent-2026-12');
    const keyring = new Map(Object.entries(dispatcher.verificationKeys).map(([id, pem]) => [id, loadEd25519PublicKey(pem)]));
    const signed = signCanonical(message, { keyId: authorizer.signing.keyId, privateKey: loadEd25519PrivateKey(authorizer.signing.privateKey) });
    expect(verifyCanonicalSignature(signed, keyring)).toEqual({ ok: true, keyId: 'intent-2026-12' });
    // Another pair under the same id does not verify: the check is on the key, not the name.
    const other = generateKeys('intent', 'intent-2026-12');
    const forged = signCanonical(message, { keyId: 'intent-2026-12', privateKey: loadEd25519PrivateKey(other.privateKeyPem) });
    expect(verifyCanonicalSignature(forged, keyring).ok).toBe(false);
  });

  it('prints a checkpoint pair the relay signs with and the CLI verifies with', () => {
    const keys = generateKeys('checkpoint');
    const env = evaluated(renderKeys(keys), ['JOURNAL_CHECKPOINT_SIGNING_KEY_ID', 'JOURNAL_CHECKPOINT_SIGNING_KEY', 'JOURNAL_CHECKPOINT_VERIFICATION_KEYS']);
    const relay = loadRelayConfig({ ...DB, JOURNAL_CHECKPOINT_SIGNING_KEY_ID: env.JOURNAL_CHECKPOINT_SIGNING_KEY_ID, JOURNAL_CHECKPOINT_SIGNING_KEY: env.JOURNAL_CHECKPOINT_SIGNING_KEY });
    const cli = loadCliConfig({ JOURNAL_CHECKPOINT_VERIFICATION_KEYS: env.JOURNAL_CHECKPOINT_VERIFICATION_KEYS }, { database: false, checkpointKeys: true });
    expect(relay.checkpoint?.keyId).toBe(defaultKeyId('checkpoint'));
    const signed = signCanonical({ chain: 'main', seq: '1000' }, { keyId: relay.checkpoint!.keyId, privateKey: loadEd25519PrivateKey(relay.checkpoint!.privateKey) });
    expect(verifyCanonicalSignature(signed, cli.checkpointKeys)).toEqual({ ok: true, keyId: defaultKeyId('checkpoint') });
  });

  it('is parsed with its kind and an optional key id, and refuses anything else', () => {
    expect(parseCommandLine(['keys', 'generate', 'intent', '--key-id', 'k-2', '--json'])).toEqual({ command: { name: 'keys', kind: 'intent', keyId: 'k-2' }, json: true });
    expect(parseCommandLine(['keys', 'generate', 'checkpoint']).command).toEqual({ name: 'keys', kind: 'checkpoint' });
    for (const argv of [['keys'], ['keys', 'generate', 'issuer'], ['keys', 'generate', 'intent', 'extra'], ['keys', 'generate', 'intent', '--key-id', 'a"b'], ['verify', '--key-id', 'k']]) {
      expect(() => parseCommandLine(argv)).toThrow(UsageError);
    }
  });
});
