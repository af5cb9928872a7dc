import { ConfigError } from '@arvis/config';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { loadCliConfig } from './cli.config';

const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();
const topicOnly = { database: false, checkpointKeys: true };

describe('loadCliConfig', () => {
  it('does not read DATABASE_URL for a command that needs no database, not even a bad one', () => {
    const c = loadCliConfig({ DATABASE_URL: 'mysql://not-read', JOURNAL_CHECKPOINT_VERIFICATION_KEYS: JSON.stringify({ 'j-1': publicKeyPem }) }, topicOnly);
    expect(c.databaseUrl).toBeUndefined();
    expect([...c.checkpointKeys.keys()]).toEqual(['j-1']);
    expect(() => loadCliConfig({ DATABASE_URL: 'mysql://nope' })).toThrow(ConfigError);
  });

  it.each([
    ['no key', {}],
    ['an empty keyring', { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: '{}' }],
    ['a private key', { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: JSON.stringify({ 'j-1': privateKeyPem }) }],
  ])('refuses the topic checks with %s', (_name, env) => {
    expect(() => loadCliConfig(env, topicOnly)).toThrow(/JOURNAL_CHECKPOINT_VERIFICATION_KEYS/);
  });
});
