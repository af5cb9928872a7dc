import { z } from 'zod';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { commonEnvShape, commonSettings, dlqRecordBytesFor } from './common-config';
import { ConfigError, loadConfig } from './load-config';

const CommonEnv = z.object(commonEnvShape);
const settings = (env: Record<string, string>) => commonSettings(loadConfig(CommonEnv, { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', ...env }), 'client', 'group');
const problems = (env: Record<string, string>): string[] => {
  try {
    settings(env);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
};

describe('relay and DLQ size settings', () => {
  it('default to a relay batch of 512 KiB, messages up to 768 KiB and 128 KiB of raw bytes per DLQ record', () => {
    const s = settings({});
    expect(s.relay).toMatchObject({ maxBatchBytes: 512 * 1024, maxMessageBytes: 768 * 1024 });
    expect(s.dlq).toEqual({ maxRawBytes: 128 * 1024 });
    // Both well below Kafka's default 1 MB message.max.bytes.
    expect(dlqRecordBytesFor(s.dlq.maxRawBytes)).toBeLessThan(s.relay.maxMessageBytes);
  });

  it('reads them from the environment', () => {
    const s = settings({ RELAY_MAX_BATCH_BYTES: '65536', RELAY_MAX_MESSAGE_BYTES: '262144', DLQ_MAX_RAW_BYTES: '1024' });
    expect(s.relay).toMatchObject({ maxBatchBytes: 65536, maxMessageBytes: 262144 });
    expect(s.dlq.maxRawBytes).toBe(1024);
  });

  it.each([
    ['RELAY_MAX_BATCH_BYTES', '0'],
    ['RELAY_MAX_BATCH_BYTES', '1.5'],
    ['RELAY_MAX_MESSAGE_BYTES', '512'],
    ['RELAY_MAX_MESSAGE_BYTES', 'lots'],
    ['DLQ_MAX_RAW_BYTES', '-1'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig(CommonEnv, { [name]: value })).toThrow(new RegExp(name));
  });

  it('refuses a DLQ limit whose records the relay would quarantine', () => {
    expect(problems({ DLQ_MAX_RAW_BYTES: String(1024 * 1024) })).toEqual([expect.stringMatching(/^DLQ_MAX_RAW_BYTES: .*more than RELAY_MAX_MESSAGE_BYTES \(786432\)/)]);
    expect(problems({ DLQ_MAX_RAW_BYTES: String(1024 * 1024), RELAY_MAX_MESSAGE_BYTES: String(2 * 1024 * 1024) })).toEqual([]);
  });

  it('lists every cross-field problem at once', () => {
    const issues = problems({ ARVIS_FAULTS: '{"relayCrashAfterPublish":true}', DLQ_MAX_RAW_BYTES: String(4 * 1024 * 1024) });
    expect(issues).toEqual([expect.stringMatching(/^ARVIS_FAULTS/), expect.stringMatching(/^DLQ_MAX_RAW_BYTES/)]);
  });
});

describe('journal checkpoint settings', () => {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();

  it('are off without a key, and read every entry count and interval with one', () => {
    expect(settings({}).checkpoint).toBeNull();
    const s = settings({ JOURNAL_CHECKPOINT_SIGNING_KEY_ID: 'j-1', JOURNAL_CHECKPOINT_SIGNING_KEY: privateKeyPem, JOURNAL_CHECKPOINT_EVERY_ENTRIES: '5' });
    expect(s.checkpoint).toEqual({ keyId: 'j-1', privateKey: privateKeyPem, everyEntries: 5, everyMs: 60000 });
  });

  it.each([
    ['a key id without a key', { JOURNAL_CHECKPOINT_SIGNING_KEY_ID: 'j-1' }, /set both or neither/],
    ['a public key where the private one goes', { JOURNAL_CHECKPOINT_SIGNING_KEY_ID: 'j-1', JOURNAL_CHECKPOINT_SIGNING_KEY: publicKeyPem }, /JOURNAL_CHECKPOINT_SIGNING_KEY: /],
  ])('refuses %s', (_name, env, message) => {
    expect(problems(env as Record<string, string>).join('\n')).toMatch(message);
  });

  it('refuses an entry count below 1', () => {
    expect(() => loadConfig(CommonEnv, { JOURNAL_CHECKPOINT_EVERY_ENTRIES: '0' })).toThrow(/JOURNAL_CHECKPOINT_EVERY_ENTRIES/);
  });
});
