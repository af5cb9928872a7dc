import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { generateEd25519KeyPair, loadEd25519PrivateKey } from '@arvis/crypto';
import { commonEnvShape, commonSettings, LOCAL_DATABASE_URL } from './common-config';
import { ConfigError, envJson, loadConfig } from './load-config';

const dir = mkdtempSync(join(tmpdir(), 'arvis-secrets-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const problems = (run: () => unknown): string[] => {
  try {
    run();
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
};

const Secrets = z.object({
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  JOURNAL_CHECKPOINT_SIGNING_KEY: commonEnvShape.JOURNAL_CHECKPOINT_SIGNING_KEY,
  TRUSTED_ISSUERS: envJson(z.array(z.object({ issuer: z.string() })), []),
  LOG_LEVEL: commonEnvShape.LOG_LEVEL,
});

describe('a secret read from <NAME>_FILE', () => {
  it('is the file\'s content, less one trailing newline, for URLs, PEM keys and JSON alike', () => {
    const { privateKeyPem } = generateEd25519KeyPair();
    const env = loadConfig(Secrets, {
      DATABASE_URL_FILE: file('db', 'postgresql://arvis_authorizer:s3cret@db:5432/arvis\n'),
      JOURNAL_CHECKPOINT_SIGNING_KEY_FILE: file('checkpoint.pem', privateKeyPem),
      TRUSTED_ISSUERS_FILE: file('issuers.json', '[{"issuer":"https://idp.example"}]\n'),
    });
    expect(env.DATABASE_URL).toBe('postgresql://arvis_authorizer:s3cret@db:5432/arvis');
    expect(env.TRUSTED_ISSUERS).toEqual([{ issuer: 'https://idp.example' }]);
    expect(loadEd25519PrivateKey(env.JOURNAL_CHECKPOINT_SIGNING_KEY!).asymmetricKeyType).toBe('ed25519');
  });

  it('is refused when the variable is set too, naming both', () => {
    expect(problems(() => loadConfig(Secrets, { DATABASE_URL: 'postgresql://a@b/c', DATABASE_URL_FILE: file('db2', 'postgresql://a@b/d') }))).toEqual([
      'DATABASE_URL and DATABASE_URL_FILE: both are set; set one',
    ]);
  });

  it('is refused when the file cannot be read or is empty, with every other problem', () => {
    const unreadable = file('unreadable', 'x');
    chmodSync(unreadable, 0o000);
    const found = problems(() =>
      loadConfig(Secrets, { DATABASE_URL_FILE: '/nonexistent/db', TRUSTED_ISSUERS_FILE: file('empty.json', '\n'), LOG_LEVEL: 'loud' }),
    );
    expect(found).toEqual([
      'DATABASE_URL_FILE: cannot read /nonexistent/db (ENOENT)',
      'TRUSTED_ISSUERS_FILE: ' + join(dir, 'empty.json') + ' is empty',
      expect.stringMatching(/^LOG_LEVEL: /),
    ]);
    // Root reads any file: the permission case only holds for an ordinary user.
    if (process.getuid?.() !== 0) expect(problems(() => loadConfig(Secrets, { DATABASE_URL_FILE: unreadable }))).toEqual([`DATABASE_URL_FILE: cannot read ${unreadable} (EACCES)`]);
  });

  it('is not read for a variable that is no secret, nor for one the schema does not read', () => {
    const env = loadConfig(Secrets, { LOG_LEVEL_FILE: '/nonexistent/level', INTENT_SIGNING_KEY_FILE: '/nonexistent/key', DATABASE_URL: 'postgresql://a@b/c' });
    expect(env).toMatchObject({ LOG_LEVEL: 'info', DATABASE_URL: 'postgresql://a@b/c' });
  });
});

describe('DATABASE_URL', () => {
  const Common = z.object(commonEnvShape);
  const settings = (env: Record<string, string>) => commonSettings(loadConfig(Common, env), 'c', 'g');

  it('must be set in the production profile: no silent local default', () => {
    expect(problems(() => settings({}))).toEqual(['DATABASE_URL: required in the production profile (no local default)']);
    expect(settings({ DATABASE_URL: 'postgresql://arvis@db/arvis' }).database.url).toBe('postgresql://arvis@db/arvis');
  });

  it('falls back to the local database in the test and development profiles', () => {
    expect(settings({ ARVIS_PROFILE: 'test' }).database.url).toBe(LOCAL_DATABASE_URL);
    expect(settings({ ARVIS_PROFILE: 'development' }).database.url).toBe(LOCAL_DATABASE_URL);
  });
});
