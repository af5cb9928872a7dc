import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { checkpointKeyCheck, clockSkewCheck, intentKeyCheck, mcpAudienceCheck, resultsApiCheck } from './checks';
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

describe('doctor: clock skew against the database', () => {
  it('measures from the middle of the round trip, says which clock is ahead, and fails past the threshold', () => {
    expect(clockSkewCheck('clock (authorizer)', { databaseMs: 10_250, sentAtMs: 10_000, answeredAtMs: 10_100 }, 5000)).toEqual({
      name: 'clock (authorizer)',
      status: 'ok',
      detail: "the database's clock is 200 ms (± 50) ahead of this machine's; at most 5000 ms allowed",
    });
    expect(clockSkewCheck('clock (dispatcher)', { databaseMs: 1_000, sentAtMs: 61_000, answeredAtMs: 61_010 }, 5000)).toEqual({
      name: 'clock (dispatcher)',
      status: 'fail',
      detail: "the database's clock is 60005 ms (± 5) behind this machine's: more than 5000 ms (--max-clock-skew-ms); synchronise the hosts' clocks (NTP)",
    });
    expect(clockSkewCheck('clock (relay)', { databaseMs: 1_000, sentAtMs: 61_000, answeredAtMs: 61_010 }, 60_005).status).toBe('ok');
  });
});

describe('doctor: the MCP front door against the authorizer', () => {
  const mcp = { resourceUri: 'https://mcp.example.com/mcp', issuers: [{ issuer: 'idp-a' }, { issuer: 'idp-b' }] };

  it('passes when every issuer it accepts has its URI as the authorizer\'s decisions audience, and names each issuer that does not', () => {
    expect(mcpAudienceCheck(mcp, [{ issuer: 'idp-a', decisions: ['https://mcp.example.com/mcp'] }, { issuer: 'idp-b', decisions: ['x', 'https://mcp.example.com/mcp'] }])).toMatchObject({ status: 'ok' });
    const failed = mcpAudienceCheck(mcp, [{ issuer: 'idp-a', decisions: ['https://other.example.com/mcp'] }]);
    expect(failed.status).toBe('fail');
    expect(failed.detail).toContain('idp-a\'s audience.decisions (https://other.example.com/mcp) does not name MCP_RESOURCE_URI https://mcp.example.com/mcp');
    expect(failed.detail).toContain('idp-b is not a trusted issuer of the authorizer');
    expect(mcpAudienceCheck(mcp, [{ issuer: 'idp-a' }, { issuer: 'idp-b', decisions: ['https://mcp.example.com/mcp'] }]).detail).toContain('none: any aud');
    expect(mcpAudienceCheck(mcp, undefined)).toMatchObject({ status: 'skip' });
  });

  it('finds the results API by its 401 without a token, and fails another answer or no answer', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/decisions/arvis-doctor-probe' ? 401 : 404).end()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await resultsApiCheck(base)).toMatchObject({ status: 'ok' });
      expect(await resultsApiCheck(`${base}/prefix`)).toMatchObject({ status: 'fail', detail: expect.stringContaining('answered 404') });
    } finally {
      server.close();
    }
    expect(await resultsApiCheck(base, 1000)).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not answer') });
  });
});
