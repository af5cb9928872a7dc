import { execFile, execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './support/services';

const run = promisify(execFile);
const CLI_DIR = join(ROOT, 'apps', 'cli');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { version: string; bin: Record<string, string>; dependencies: Record<string, string> };

// The CLI as an operator installs it: npm pack of apps/cli, the tarball installed into an empty
// folder (its dependencies from the npm cache), and the `arvis` command run from there, with no
// project checkout, build or configuration in sight.
describe('the CLI packed on its own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arvis-cli-install-'));
  const arvis = (args: string[]) => run(join(dir, 'node_modules', '.bin', 'arvis'), args, { cwd: dir, env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 });

  beforeAll(async () => {
    mkdirSync(join(dir, 'packages'));
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', join(dir, 'packages')], { cwd: CLI_DIR, encoding: 'utf8' }).trim().split('\n').pop()!;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'an-operators-machine', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(dir, 'packages', tarball)], { cwd: dir, timeout: 300_000 });
  }, 360_000);

  it('declares the project\'s own versions of what it loads', () => {
    const root = readJson(join(ROOT, 'package.json'));
    const cli = readJson(join(CLI_DIR, 'package.json'));
    expect(Object.entries(cli.dependencies).filter(([name, v]) => root.dependencies[name] !== v)).toEqual([]);
    expect(readJson(join(dir, 'node_modules', '@arvis', 'cli', 'package.json')).bin).toEqual({ arvis: 'dist/apps/cli/src/main.js' });
  });

  it('says its release with arvis --version: the project\'s one version (ADR 0065)', async () => {
    const { version } = readJson(join(ROOT, 'package.json'));
    expect(readJson(join(CLI_DIR, 'package.json')).version).toBe(version);
    expect((await arvis(['--version'])).stdout).toBe(`arvis ${version}\n`);
    expect(JSON.parse((await arvis(['version', '--json'])).stdout)).toEqual({ version });
  });

  it('answers arvis --help with its usage, keys generate among the commands', async () => {
    const { stdout } = await arvis(['--help']);
    expect(stdout).toContain('Usage:');
    expect(stdout).toContain('keys generate intent|checkpoint');
  });

  it('makes an intent key pair with arvis keys generate whose halves sign and verify', async () => {
    const { stdout } = await arvis(['keys', 'generate', 'intent', '--key-id', 'intent-1', '--json']);
    const keys = JSON.parse(stdout) as { keyId: string; signer: { env: Record<string, string> }; verifier: { env: Record<string, string> } };
    expect(keys.signer.env.INTENT_SIGNING_KEY_ID).toBe('intent-1');
    const publicPem = (JSON.parse(keys.verifier.env.INTENT_VERIFICATION_KEYS) as Record<string, string>)['intent-1'];
    const signature = sign(null, Buffer.from('an intent'), createPrivateKey(keys.signer.env.INTENT_SIGNING_KEY));
    expect(verify(null, Buffer.from('an intent'), createPublicKey(publicPem), signature)).toBe(true);
    const text = await arvis(['keys', 'generate', 'checkpoint']);
    expect(text.stdout).toMatch(/^export JOURNAL_CHECKPOINT_SIGNING_KEY='-----BEGIN PRIVATE KEY-----$/m);
  });
});
