import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { commonEnvShape, commonSettings } from './common-config';
import { describeKafkaSecurity, kafkaTopicEnvShape, kafkaTopicSettings } from './kafka-security-config';
import { ConfigError, loadConfig } from './load-config';

const dir = mkdtempSync(join(tmpdir(), 'arvis-kafka-security-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const passwordFile = file('password', 's3cret\n');
const emptyFile = file('empty', '\n');
const caFile = file('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const missing = join(dir, 'missing.pem');

const CommonEnv = z.object(commonEnvShape);
const kafkaOf = (env: Record<string, string>) => commonSettings(loadConfig(CommonEnv, { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', ...env }), 'client', 'group').kafka;
const problems = (env: Record<string, string>): string[] => {
  try {
    kafkaOf(env);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
};
const scram = { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'authorizer' };

describe('Kafka security settings', () => {
  it('default to plaintext without authentication', () => {
    expect(kafkaOf({}).security).toEqual({});
  });

  it('take SCRAM credentials from the environment or from a file (trimmed)', () => {
    expect(kafkaOf({ ...scram, KAFKA_SASL_PASSWORD: 'pw' }).security).toEqual({ sasl: { mechanism: 'scram-sha-512', username: 'authorizer', password: 'pw' } });
    expect(kafkaOf({ ...scram, KAFKA_SASL_PASSWORD_FILE: passwordFile }).security.sasl?.password).toBe('s3cret');
  });

  it('take TLS with the system CAs, or with a CA file and a client certificate read at start-up', () => {
    expect(kafkaOf({ KAFKA_TLS: 'true' }).security).toEqual({ ssl: true });
    const s = kafkaOf({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: caFile, KAFKA_TLS_CERT_FILE: caFile, KAFKA_TLS_KEY_FILE: passwordFile, ...scram, KAFKA_SASL_PASSWORD: 'pw' }).security;
    expect(s.ssl).toEqual({ ca: [expect.stringContaining('BEGIN CERTIFICATE')], cert: expect.stringContaining('BEGIN CERTIFICATE'), key: 's3cret\n' });
    expect(s.sasl?.mechanism).toBe('scram-sha-512');
  });

  it.each([
    ['a mechanism without a username', { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: 'pw' }, 'KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=scram-sha-256'],
    ['a mechanism without a password', { ...scram }, 'KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE: exactly one is required'],
    ['both a password and a password file', { ...scram, KAFKA_SASL_PASSWORD: 'pw', KAFKA_SASL_PASSWORD_FILE: passwordFile }, 'exactly one is required'],
    ['a password file that does not exist', { ...scram, KAFKA_SASL_PASSWORD_FILE: missing }, `KAFKA_SASL_PASSWORD_FILE: cannot read ${missing} (ENOENT)`],
    ['an empty password file', { ...scram, KAFKA_SASL_PASSWORD_FILE: emptyFile }, `KAFKA_SASL_PASSWORD_FILE: ${emptyFile} is empty`],
    ['credentials without a mechanism', { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'pw' }, 'KAFKA_SASL_MECHANISM is none'],
    ['PLAIN without TLS in production', { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'pw' }, 'it needs KAFKA_TLS=true in the production profile'],
    ['a CA file without TLS', { KAFKA_TLS_CA_FILE: caFile }, 'KAFKA_TLS_CA_FILE: set, but KAFKA_TLS is not true'],
    ['a client certificate without its key', { KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: caFile }, 'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE: set both or neither'],
    ['a CA file that does not exist', { KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: missing }, `KAFKA_TLS_CA_FILE: cannot read ${missing}`],
  ])('refuse %s, naming the problem', (_case, env, expected) => {
    expect(problems(env).join('\n')).toContain(expected);
  });

  it('are described for the logs by principal, never by password', () => {
    const s = kafkaOf({ ...scram, KAFKA_SASL_PASSWORD: 'pw-not-logged', KAFKA_TLS: 'true' }).security;
    expect(describeKafkaSecurity(s)).toBe('SASL scram-sha-512 as authorizer, TLS');
    expect(describeKafkaSecurity({})).toBe('no SASL, no TLS');
  });

  it('refuse an unknown mechanism', () => {
    expect(() => loadConfig(CommonEnv, { KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(/KAFKA_SASL_MECHANISM/);
  });

  it('accept PLAIN without TLS outside production (a local broker)', () => {
    expect(kafkaOf({ ARVIS_PROFILE: 'development', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'pw' }).security.sasl?.mechanism).toBe('plain');
  });
});

describe('topic replication settings', () => {
  const TopicEnv = z.object(kafkaTopicEnvShape);
  it('default to one replica (the local broker) and read both from the environment', () => {
    expect(kafkaTopicSettings(loadConfig(TopicEnv, {}))).toEqual({ topics: { replicationFactor: 1, minInsyncReplicas: 1 }, issues: [] });
    expect(kafkaTopicSettings(loadConfig(TopicEnv, { KAFKA_TOPIC_REPLICATION_FACTOR: '3', KAFKA_TOPIC_MIN_INSYNC_REPLICAS: '2' })).topics).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('refuse a min.insync.replicas above the replication factor, and a zero factor', () => {
    expect(kafkaTopicSettings(loadConfig(TopicEnv, { KAFKA_TOPIC_MIN_INSYNC_REPLICAS: '2' })).issues).toEqual([
      'KAFKA_TOPIC_MIN_INSYNC_REPLICAS (2) is above KAFKA_TOPIC_REPLICATION_FACTOR (1): every send would be refused',
    ]);
    expect(() => loadConfig(TopicEnv, { KAFKA_TOPIC_REPLICATION_FACTOR: '0' })).toThrow(/KAFKA_TOPIC_REPLICATION_FACTOR/);
  });
});
