import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { topicsFor } from '@arvis/config';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { createKafka } from '@arvis/kafka';
import { shellQuote } from '../apps/cli/src/generate-keys/generate-keys';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { ROOT } from './support/services';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
interface Report {
  ok: boolean;
  failed: string[];
  checks: { name: string; status: 'ok' | 'fail' | 'skip'; detail: string }[];
}

/** `arvis doctor` as an operator runs it: on the services' environment files, nothing started. */
function doctor(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'doctor', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout) =>
      resolve({ code: e ? Number((e as { code?: number }).code) : 0, stdout }),
    );
  });
}

describe('arvis doctor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arvis-doctor-'));
  const envFile = (name: string, env: Record<string, string>) => {
    const path = join(dir, name);
    writeFileSync(path, Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}\n`).join(''));
    return path;
  };
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment('doctor');
  }, 120_000);

  it('passes a correct deployment: configurations, database, migrations, every topic, intent keys, issuers', async () => {
    const r = await doctor(['--authorizer-env', envFile('authorizer.env', env.appEnv), '--dispatcher-env', envFile('dispatcher.env', env.appEnv), '--json']);
    const report = JSON.parse(r.stdout) as Report;
    expect({ code: r.code, failed: report.failed }).toEqual({ code: 0, failed: [] });
    const names = report.checks.filter((c) => c.status === 'ok').map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining([
      'configuration (authorizer)', 'configuration (dispatcher)', 'database (authorizer)', 'database (dispatcher)', 'migrations', 'intent keys',
      ...Object.values(topicsFor(env.topicPrefix)).map((t) => `topic ${t}`),
    ]));
    expect(report.checks.filter((c) => c.name.startsWith('trusted issuer ')).map((c) => c.status)).toEqual(['ok']);
  });

  it('names a dispatcher holding another intent key and a topic that is missing, and nothing else', async () => {
    const topics = topicsFor(env.topicPrefix);
    const admin = createKafka({ brokers: env.brokers, security: {}, clientId: 'doctor-spec' }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topics.intentsDlq] });
    await admin.disconnect();
    const keyId = env.appEnv.INTENT_SIGNING_KEY_ID;
    const dispatcher = { ...env.appEnv, INTENT_VERIFICATION_KEYS: JSON.stringify({ [keyId]: generateEd25519KeyPair().publicKeyPem }) };
    const args = ['--authorizer-env', envFile('authorizer.env', env.appEnv), '--dispatcher-env', envFile('mismatched.env', dispatcher)];
    const r = await doctor([...args, '--json']);
    const report = JSON.parse(r.stdout) as Report;
    expect({ code: r.code, failed: report.failed }).toEqual({ code: 2, failed: [`topic ${topics.intentsDlq}`, 'intent keys'] });
    expect(report.checks.find((c) => c.name === 'intent keys')!.detail).toBe(
      `the dispatcher's key ${keyId} is not the public half of the authorizer's signing key: every intent would be dead-lettered`,
    );
    const text = await doctor(args);
    expect(text.stdout.trim().split('\n')).toEqual(expect.arrayContaining([
      `FAIL  topic ${topics.intentsDlq}: missing (npm run topics)`,
      `doctor: 2 failed: topic ${topics.intentsDlq}, intent keys`,
    ]));
  });
});
