import { topicsFor } from '@arvis/config';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { createKafka } from '@arvis/kafka';
import { applyDatabaseRoles, componentRole, DEFAULT_ROLE_PREFIX } from '@arvis/persistence';
import { Client } from 'pg';
import { join } from 'node:path';
import { doctor, envFiles, type DoctorReport as Report } from './support/doctor';
import { createEnvironment, type TestEnvironment } from './support/environment';

describe('arvis doctor', () => {
  const envFile = envFiles('arvis-doctor-');
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

  it('names an MCP front door whose URI is not the authorizer\'s decisions audience and whose AUTHORIZER_URL does not answer', async () => {
    const issuer = JSON.parse(env.appEnv.TRUSTED_ISSUERS) as { issuer: string; publicKey: string }[];
    const mcp = {
      ...env.appEnv,
      MCP_RESOURCE_URI: 'http://127.0.0.1:1/mcp',
      MCP_ISSUERS: JSON.stringify([{ issuer: issuer[0].issuer, alg: 'EdDSA', publicKey: issuer[0].publicKey }]),
      AUTHORIZER_URL: 'http://127.0.0.1:1',
    };
    const r = await doctor(['--authorizer-env', envFile('mcp-authorizer.env', env.appEnv), '--mcp-env', envFile('mcp.env', mcp), '--json']);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.find((c) => c.name === 'configuration (mcp)')?.status).toBe('ok');
    expect({ code: r.code, failed: report.failed.filter((f) => f.startsWith('mcp ')) }).toEqual({ code: 2, failed: ['mcp audience', 'mcp results API'] });
    expect(report.checks.find((c) => c.name === 'mcp audience')!.detail).toBe(
      `${issuer[0].issuer}'s audience.decisions (none: any aud) does not name MCP_RESOURCE_URI http://127.0.0.1:1/mcp`,
    );
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

  it('checks each service\'s login against its role\'s grants: exactly them passes, a right missing or one too many is named', async () => {
    await applyDatabaseRoles(env.databaseUrl, { prefix: DEFAULT_ROLE_PREFIX, packages: ['@arvis/tool-demo'] });
    const as = (role: string) => {
      const u = new URL(env.databaseUrl);
      u.username = componentRole(DEFAULT_ROLE_PREFIX, role as 'authorizer');
      return u.toString();
    };
    const files = () => [
      '--authorizer-env', envFile('authorizer-role.env', { ...env.appEnv, DATABASE_URL: as('authorizer') }),
      '--dispatcher-env', envFile('dispatcher-role.env', { ...env.appEnv, DATABASE_URL: as('dispatcher') }),
      '--relay-env', envFile('relay-role.env', { ...env.appEnv, DATABASE_URL: as('relay') }),
      '--json',
    ];
    const rights = (report: Report) => report.checks.filter((c) => c.name.startsWith('database rights'));
    const exact = JSON.parse((await doctor(files())).stdout) as Report;
    expect(rights(exact).map((c) => [c.name, c.status])).toEqual([
      ['database rights (authorizer)', 'ok'],
      ['database rights (dispatcher)', 'ok'],
      ['database rights (relay)', 'ok'],
    ]);
    // No role may read the migration history: that check is left to the migrating user.
    expect(exact.checks.find((c) => c.name === 'migrations')?.status).toBe('skip');
    expect(rights(exact)[1].detail).toMatch(/^arvis_dispatcher has exactly the dispatcher's rights on \d+ tables$/);

    const owner = new Client({ connectionString: env.databaseUrl });
    await owner.connect();
    try {
      await owner.query('REVOKE INSERT ON runs FROM arvis_dispatcher');
      await owner.query('GRANT DELETE ON journal_checkpoints TO arvis_relay');
      const wrong = JSON.parse((await doctor(files())).stdout) as Report;
      // The intents DLQ is still missing (the case before deleted it).
      expect(wrong.failed).toEqual(['database rights (dispatcher)', 'database rights (relay)', `topic ${topicsFor(env.topicPrefix).intentsDlq}`]);
      expect(rights(wrong).map((c) => c.detail)).toEqual([
        'arvis_authorizer has exactly the authorizer\'s rights on 21 tables',
        'arvis_dispatcher lacks INSERT on runs: those statements would be refused (npm run migrate grants them)',
        'arvis_relay may also DELETE on journal_checkpoints: more than the relay needs',
      ]);
    } finally {
      await applyDatabaseRoles(env.databaseUrl, { prefix: DEFAULT_ROLE_PREFIX, packages: ['@arvis/tool-demo'] });
      await owner.end();
    }
  });

  // The database's clock against this machine's: the CLI's clock shifted a minute ahead, as a host
  // without NTP would be (test/support/shift-clock.cjs).
  it('names each service whose database clock is further from this machine\'s than allowed, and passes within a wider threshold', async () => {
    const shifted = { NODE_OPTIONS: `--require ${join(__dirname, 'support', 'shift-clock.cjs')}`, ARVIS_TEST_CLOCK_OFFSET_MS: '60000' };
    const args = ['--authorizer-env', envFile('clock-authorizer.env', env.appEnv), '--dispatcher-env', envFile('clock-dispatcher.env', env.appEnv), '--json'];
    const clocks = (report: Report) => report.checks.filter((c) => c.name.startsWith('clock ('));
    const off = JSON.parse((await doctor(args, shifted)).stdout) as Report;
    expect(clocks(off).map((c) => [c.name, c.status])).toEqual([['clock (authorizer)', 'fail'], ['clock (dispatcher)', 'fail']]);
    expect(off.failed).toEqual(expect.arrayContaining(['clock (authorizer)', 'clock (dispatcher)']));
    expect(clocks(off)[0].detail).toMatch(/^the database's clock is (59|60)\d{3} ms \(± \d+\) behind this machine's: more than 5000 ms \(--max-clock-skew-ms\); synchronise the hosts' clocks \(NTP\)$/);
    const wide = JSON.parse((await doctor([...args, '--max-clock-skew-ms', '120000'], shifted)).stdout) as Report;
    expect(clocks(wide).map((c) => c.status)).toEqual(['ok', 'ok']);
    const unshifted = JSON.parse((await doctor(args)).stdout) as Report;
    expect(clocks(unshifted).map((c) => c.status)).toEqual(['ok', 'ok']);
  });
});
