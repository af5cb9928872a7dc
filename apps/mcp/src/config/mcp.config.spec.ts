import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@arvis/config';
import { loadMcpConfig } from './mcp.config';

const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
const base = {
  MCP_RESOURCE_URI: 'https://mcp.example.com/mcp',
  MCP_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example.com', alg: 'EdDSA', publicKey }]),
  AUTHORIZER_URL: 'http://authorizer:3001/',
  ARVIS_TOOL_PACKAGES: '@arvis/demo-tools',
};

function problems(env: Record<string, string>): string[] {
  try {
    loadMcpConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
}

describe('MCP front door configuration', () => {
  it('takes its URI, issuers, the authorizer and the tool packages, with the defaults', () => {
    const c = loadMcpConfig(base);
    expect(c).toMatchObject({
      resourceUri: 'https://mcp.example.com/mcp',
      authorizerUrl: 'http://authorizer:3001',
      httpPort: 3004,
      managementPort: 3104,
      resultWaitS: 25,
      confirmationWaitS: 2,
      defaultRiskScore: 0.5,
      toolPackages: ['@arvis/demo-tools'],
      topics: { decisions: 'arvis.decisions' },
    });
    expect(c.issuers.map((i) => i.issuer)).toEqual(['https://idp.example.com']);
  });

  it('names each thing wrong: the path, a query, http in production, no issuer, a key source too many, no tools, one port for both', () => {
    expect(problems({ ...base, MCP_RESOURCE_URI: 'https://mcp.example.com/tools' })).toEqual([expect.stringContaining('MCP_RESOURCE_URI: its path must be /mcp')]);
    expect(problems({ ...base, MCP_RESOURCE_URI: 'https://mcp.example.com/mcp?x=1' })).toEqual([expect.stringContaining('no query or fragment')]);
    expect(problems({ ...base, MCP_RESOURCE_URI: 'http://mcp.example.com/mcp' })).toEqual([expect.stringContaining('must be https in production')]);
    expect(problems({ ...base, MCP_RESOURCE_URI: 'http://127.0.0.1:3004/mcp' })).toEqual([]);
    expect(problems({ ...base, MCP_ISSUERS: '' })).toEqual([expect.stringContaining('at least one issuer')]);
    expect(problems({ ...base, MCP_ISSUERS: JSON.stringify([{ issuer: 'i', alg: 'EdDSA', publicKey, jwksUri: 'https://idp/jwks' }]) })).toEqual([
      expect.stringContaining('exactly one of publicKey or jwksUri'),
    ]);
    expect(problems({ ...base, ARVIS_TOOL_PACKAGES: '' })).toEqual([expect.stringContaining('ARVIS_TOOL_PACKAGES: required')]);
    expect(problems({ ...base, HTTP_PORT: '3104' })).toEqual([expect.stringContaining('must differ from HTTP_PORT')]);
    expect(problems({ ...base, AUTHORIZER_URL: 'authorizer:3001' })).toEqual([expect.stringContaining('AUTHORIZER_URL')]);
  });
});
