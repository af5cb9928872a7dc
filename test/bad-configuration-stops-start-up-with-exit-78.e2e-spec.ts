import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/services';

// A service with a bad configuration stops before touching Kafka or PostgreSQL: exit 78
// (EX_CONFIG) and every problem named on stderr, not a fault later in a batch.
// Required in the production profile; the tool package problems are found before any connection.
const LOCAL_DB = 'postgresql://postgres@127.0.0.1:5432/arvis';
const main = (app: string) => join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
const start = (app: string, env: Record<string, string>) =>
  spawnSync(process.execPath, [main(app)], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });

describe('a service started with a bad configuration', () => {
  it('the authorizer exits 78 naming a JWKS file it cannot read, an issuer without tenants and the missing signing key', () => {
    const r = start('authorizer', {
      TRUSTED_ISSUERS: JSON.stringify([
        { issuer: 'https://idp.example', alg: 'EdDSA', jwksFile: '/nonexistent/jwks.json', tenants: ['*'] },
        { issuer: 'https://old.example', alg: 'EdDSA', jwksUri: 'https://old.example/jwks' },
      ]),
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('[authorizer] Invalid configuration:');
    expect(r.stderr).toContain('TRUSTED_ISSUERS.0.jwksFile: cannot read /nonexistent/jwks.json');
    expect(r.stderr).toContain('TRUSTED_ISSUERS.1.tenants: required: the tenants this issuer may speak for');
    expect(r.stderr).toContain('INTENT_SIGNING_KEY');
  });

  it('the authorizer exits 78 naming a secret set twice and a secret file it cannot read, and in production a DATABASE_URL left unset', () => {
    const keys = generateKeyPairSync('ed25519');
    const r = start('authorizer', {
      INTENT_SIGNING_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      INTENT_SIGNING_KEY_FILE: '/nonexistent/intent-key.pem',
      TRUSTED_ISSUERS_FILE: '/nonexistent/trusted-issuers.json',
      TRUST_PROXY: 'false',
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('INTENT_SIGNING_KEY and INTENT_SIGNING_KEY_FILE: both are set; set one');
    expect(r.stderr).toContain('TRUSTED_ISSUERS_FILE: cannot read /nonexistent/trusted-issuers.json (ENOENT)');
    // Every secret from a file this time, all readable: only the missing DATABASE_URL is left.
    const dir = mkdtempSync(join(tmpdir(), 'arvis-secrets-'));
    const secret = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    const issuers = [{ issuer: 'https://idp.example', alg: 'EdDSA', publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(), tenants: ['*'] }];
    const unset = start('authorizer', {
      INTENT_SIGNING_KEY_FILE: secret('intent-key.pem', keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
      TRUSTED_ISSUERS_FILE: secret('trusted-issuers.json', JSON.stringify(issuers)),
      TRUST_PROXY: 'false',
    });
    expect([unset.status, unset.stderr.match(/^  - .*$/gm)]).toEqual([78, ['  - DATABASE_URL: required in the production profile (no local default)']]);
  });

  it('the relay exits 78 naming a Kafka password file it cannot read and a CA file without TLS', () => {
    const r = start('relay', {
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'relay',
      KAFKA_SASL_PASSWORD_FILE: '/nonexistent/kafka-password',
      KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem',
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('[relay] Invalid configuration:');
    expect(r.stderr).toContain('KAFKA_SASL_PASSWORD_FILE: cannot read /nonexistent/kafka-password (ENOENT)');
    expect(r.stderr).toContain('KAFKA_TLS_CA_FILE: set, but KAFKA_TLS is not true');
  });

  it('the dispatcher exits 78 when fault injection is asked for in production', () => {
    // Otherwise valid, so the cross-field rule (checked after each field) is what stops it.
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const r = start('dispatcher', {
      INTENT_VERIFICATION_KEYS: JSON.stringify({ 'authorizer-1': publicKey }),
      ARVIS_FAULTS: JSON.stringify({ dispatcherCrashInsideTool: [{ decisionIdPrefix: 'x' }] }),
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('[dispatcher] Invalid configuration:');
    expect(r.stderr).toContain('ARVIS_FAULTS: fault points are refused in the production profile');
  });

  it('the dispatcher exits 78 naming a tool package it cannot load, and the authorizer one with no tool package at all', () => {
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const r = start('dispatcher', { DATABASE_URL: LOCAL_DB, INTENT_VERIFICATION_KEYS: JSON.stringify({ 'authorizer-1': publicKey }), ARVIS_TOOL_PACKAGES: './no/such/package' });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("ARVIS_TOOL_PACKAGES: ./no/such/package cannot be loaded: Cannot find module './no/such/package'");
    const keys = generateKeyPairSync('ed25519');
    const a = start('authorizer', {
      DATABASE_URL: LOCAL_DB,
      TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example', alg: 'EdDSA', publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(), tenants: ['*'] }]),
      INTENT_SIGNING_KEY_ID: 'k1',
      INTENT_SIGNING_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      TRUST_PROXY: 'false',
    });
    expect(a.status).toBe(78);
    expect(a.stderr).toContain('ARVIS_TOOL_PACKAGES: no tool packages configured');
  });

  it('the dispatcher exits 78 naming a package of a pool it does not serve and a pool it loaded no package for', () => {
    // ADR 0081: a dispatcher loads only its pools' packages, and serves no pool it cannot run.
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const r = start('dispatcher', {
      DATABASE_URL: LOCAL_DB,
      INTENT_VERIFICATION_KEYS: JSON.stringify({ 'authorizer-1': publicKey }),
      ARVIS_TOOL_PACKAGES: [join(ROOT, 'dist', 'tools', 'demo'), join(ROOT, 'test', 'support', 'tool-packages', 'pool-beta')].join(','),
      DISPATCHER_POOLS: 'shared,alpha',
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('ARVIS_TOOL_PACKAGES: @arvis/tool-pool-beta is in pool "beta", which DISPATCHER_POOLS (shared,alpha) does not name');
    expect(r.stderr).toContain('DISPATCHER_POOLS: pool "alpha" has no tool package among ARVIS_TOOL_PACKAGES');
  });

  it('the dispatcher exits 78 naming an ES module package that awaits at top level and one exported only under import', () => {
    // Both would load with import(); the services load packages with require (ADR 0079), so each is named with what to change.
    const dir = mkdtempSync(join(tmpdir(), 'arvis-esm-'));
    const pkg = (at: string, manifest: Record<string, unknown>, index: string) => {
      mkdirSync(at, { recursive: true });
      writeFileSync(join(at, 'package.json'), JSON.stringify({ version: '1.0.0', type: 'module', ...manifest }));
      writeFileSync(join(at, 'index.js'), index);
    };
    pkg(join(dir, 'awaits'), { name: 'awaits', main: 'index.js' }, 'await Promise.resolve();\nexport const toolPackage = { name: "awaits", version: "1", tools: [] };\n');
    pkg(join(dir, 'node_modules', 'import-only'), { name: 'import-only', exports: { '.': { import: './index.js' } } }, 'export const toolPackage = { name: "import-only", version: "1", tools: [] };\n');
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const r = spawnSync(process.execPath, [main('dispatcher')], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: LOCAL_DB, INTENT_VERIFICATION_KEYS: JSON.stringify({ 'authorizer-1': publicKey }), ARVIS_TOOL_PACKAGES: './awaits,import-only' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('ARVIS_TOOL_PACKAGES: ./awaits cannot be loaded: ');
    expect(r.stderr).toContain('(an ES module tool package must not use top-level await');
    expect(r.stderr).toContain('ARVIS_TOOL_PACKAGES: import-only cannot be loaded: ');
    expect(r.stderr).toContain('(a tool package exports its entry under the "default" or "require" condition, not only "import")');
  });

  it('the authorizer exits 78 in production until TRUST_PROXY says who may name the client, and refuses true', () => {
    const keys = generateKeyPairSync('ed25519');
    const valid = {
      TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example', alg: 'EdDSA', publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(), tenants: ['*'] }]),
      INTENT_SIGNING_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const unset = start('authorizer', valid);
    expect([unset.status, unset.stderr]).toEqual([78, expect.stringContaining('TRUST_PROXY: must be set in production')]);
    const all = start('authorizer', { ...valid, TRUST_PROXY: 'true' });
    expect([all.status, all.stderr]).toEqual([78, expect.stringContaining('TRUST_PROXY: true would trust any X-Forwarded-For')]);
  });
});
