import { generateEd25519KeyPair } from '@arvis/crypto';
import { checkpointKeyCheck, intentKeyCheck } from './checks';
import { parseEnvFile } from './env-file';
import { renderKeys, generateKeys } from '../generate-keys/generate-keys';

describe('doctor: reading an environment file', () => {
  it('reads what arvis keys generate prints, quotes of both kinds, comments and export', () => {
    const keys = generateKeys('intent', 'k1');
    const text = [...renderKeys(keys), '# a comment', '', 'PLAIN=a b  # trailing comment', 'DOUBLE="say \\"hi\\" $x"', "MIXED='it'\\''s'", 'EMPTY='].join('\n');
    const { env, problems } = parseEnvFile(text);
    expect(problems).toEqual([]);
    expect(env).toEqual({
      INTENT_SIGNING_KEY_ID: 'k1',
      INTENT_SIGNING_KEY: keys.privateKeyPem,
      INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: keys.publicKeyPem }),
      PLAIN: 'a b',
      DOUBLE: 'say "hi" $x',
      MIXED: "it's",
      EMPTY: '',
    });
  });

  it('names the line of anything that is not NAME=value, and an unterminated quote', () => {
    expect(parseEnvFile("A=1\nnot a setting\nB='open\n").problems).toEqual(['line 2: not NAME=value', 'line 3: B: unterminated quote']);
  });
});

describe('doctor: key checks', () => {
  const intent = generateEd25519KeyPair();
  const signer = { service: 'authorizer', keyId: 'k1', privateKey: intent.privateKeyPem };

  it('passes an intent key whose public half a dispatcher holds under its id, and names each way it can be wrong', () => {
    expect(intentKeyCheck(signer, [{ service: 'dispatcher', keys: { k0: generateEd25519KeyPair().publicKeyPem, k1: intent.publicKeyPem } }]).status).toBe('ok');
    expect(intentKeyCheck(signer, [{ service: 'dispatcher', keys: { k0: intent.publicKeyPem } }])).toEqual({
      name: 'intent keys',
      status: 'fail',
      detail: 'the dispatcher has no key k1 (it accepts k0): every intent would be dead-lettered',
    });
    expect(intentKeyCheck(signer, [{ service: 'dispatcher', keys: { k1: generateEd25519KeyPair().publicKeyPem } }]).detail).toMatch(/is not the public half/);
    expect(intentKeyCheck(undefined, []).status).toBe('skip');
  });

  it('passes one checkpoint key shared by the signers and held by the analysts, and fails two keys or a missing public half', () => {
    const cp = generateEd25519KeyPair();
    const a = { service: 'authorizer', keyId: 'c1', privateKey: cp.privateKeyPem };
    const d = { service: 'dispatcher', keyId: 'c1', privateKey: cp.privateKeyPem };
    expect(checkpointKeyCheck([a, d], { c1: cp.publicKeyPem }).status).toBe('ok');
    expect(checkpointKeyCheck([a, { ...d, privateKey: generateEd25519KeyPair().privateKeyPem }], undefined).detail).toMatch(/whichever runs the relay signs/);
    expect(checkpointKeyCheck([a], { c0: cp.publicKeyPem }).detail).toBe("the analysts' JOURNAL_CHECKPOINT_VERIFICATION_KEYS has no key c1 (it has c0)");
    expect(checkpointKeyCheck([a], { c1: generateEd25519KeyPair().publicKeyPem }).status).toBe('fail');
    expect(checkpointKeyCheck([], undefined).status).toBe('skip');
  });
});
