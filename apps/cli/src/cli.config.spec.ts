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

  it('connects as the analyst named by the Kafka security settings, and refuses inconsistent ones', () => {
    const env = { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: JSON.stringify({ 'j-1': publicKeyPem }), KAFKA_BROKERS: 'b1:9093, b2:9093' };
    const c = loadCliConfig({ ...env, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'analyst', KAFKA_SASL_PASSWORD: 'pw', KAFKA_TLS: 'true' }, topicOnly);
    expect(c.kafka).toEqual({ brokers: ['b1:9093', 'b2:9093'], security: { ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'analyst', password: 'pw' } } });
    expect(() => loadCliConfig({ ...env, KAFKA_SASL_MECHANISM: 'scram-sha-512' }, topicOnly)).toThrow(/KAFKA_SASL_USERNAME: required/);
  });

  it.each([
    ['no key', {}],
    ['an empty keyring', { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: '{}' }],
    ['a private key', { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: JSON.stringify({ 'j-1': privateKeyPem }) }],
  ])('refuses the topic checks with %s', (_name, env) => {
    expect(() => loadCliConfig(env, topicOnly)).toThrow(/JOURNAL_CHECKPOINT_VERIFICATION_KEYS/);
  });
});

describe('the CLI\'s DATABASE_URL', () => {
  it('is required in the production profile and the local database only in the others', () => {
    expect(() => loadCliConfig({})).toThrow(/DATABASE_URL: required in the production profile/);
    expect(loadCliConfig({ ARVIS_PROFILE: 'test' }).databaseUrl).toBe('postgresql://postgres@127.0.0.1:5432/arvis');
    expect(loadCliConfig({ DATABASE_URL: 'postgresql://arvis_cli@db/arvis' }).databaseUrl).toBe('postgresql://arvis_cli@db/arvis');
  });
});
