import { z } from 'zod';
import { commonEnvShape, ConfigError, envInt, envJson, envString, kafkaSecurity, kafkaSecurityEnvShape, loadConfig, topicsFor } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';

/** Where the front door finds an issuer's signing keys: a public key (PEM), or its JWKS URL. */
const McpIssuer = z
  .strictObject({
    issuer: z.string().min(1),
    alg: z.enum(['EdDSA', 'ES256', 'RS256']),
    publicKey: z.string().min(1).optional(),
    jwksUri: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  })
  .refine((i) => (i.publicKey === undefined) !== (i.jwksUri === undefined), 'exactly one of publicKey or jwksUri');
export type McpIssuer = z.output<typeof McpIssuer>;

/** The MCP endpoint's path: the resource URI names it, and its metadata URL follows from it (RFC 9728 §3.1). */
export const MCP_PATH = '/mcp';

/** Every variable the MCP front door reads (docs/configuration.md is generated from it). */
export const McpEnv = z
  .object({
    ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE,
    LOG_LEVEL: commonEnvShape.LOG_LEVEL,
    LOG_FORMAT: commonEnvShape.LOG_FORMAT,
    HTTP_HOST: commonEnvShape.HTTP_HOST,
    /** The MCP endpoint and its protected-resource metadata. */
    HTTP_PORT: envInt(3004, 1, 65535),
    MANAGEMENT_PORT: envInt(3104, 1, 65535),
    KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
    KAFKA_CLIENT_ID: envString('arvis-mcp'),
    ...kafkaSecurityEnvShape,
    ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
    ARVIS_TOOL_PACKAGES: toolPackagesEnv,
    /** This server's own URI: the only `aud` it accepts, and the issuers' decisions audience. */
    MCP_RESOURCE_URI: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    MCP_ISSUERS: envJson(z.array(McpIssuer).min(1, 'at least one issuer'), []),
    /** The authorizer's API, whose results endpoint (ADR 0072) the front door asks with the caller's token. */
    AUTHORIZER_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    MCP_RESULT_WAIT_S: envInt(25, 0, 300),
    MCP_CONFIRMATION_WAIT_S: envInt(2, 0, 300),
    MCP_DEFAULT_RISK_SCORE: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().min(0).max(1).default(0.5)),
  })
  .superRefine((env, ctx) => {
    const uri = new URL(env.MCP_RESOURCE_URI);
    if (uri.pathname !== MCP_PATH) ctx.addIssue({ code: 'custom', path: ['MCP_RESOURCE_URI'], message: `its path must be ${MCP_PATH}, where the server answers` });
    if (uri.search !== '' || uri.hash !== '') ctx.addIssue({ code: 'custom', path: ['MCP_RESOURCE_URI'], message: 'must have no query or fragment (RFC 8707)' });
    if (env.ARVIS_PROFILE === 'production' && uri.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(uri.hostname)) {
      ctx.addIssue({ code: 'custom', path: ['MCP_RESOURCE_URI'], message: 'must be https in production (http only for a loopback host)' });
    }
    if (env.ARVIS_TOOL_PACKAGES.length === 0) ctx.addIssue({ code: 'custom', path: ['ARVIS_TOOL_PACKAGES'], message: 'required: the packages whose tools this server lists' });
    if (env.MANAGEMENT_PORT === env.HTTP_PORT) ctx.addIssue({ code: 'custom', path: ['MANAGEMENT_PORT'], message: 'must differ from HTTP_PORT (the MCP endpoint)' });
  });

export function loadMcpConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(McpEnv, env);
  const { security, issues } = kafkaSecurity(e, e.ARVIS_PROFILE);
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    service: 'mcp' as const,
    profile: e.ARVIS_PROFILE,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    httpHost: e.HTTP_HOST,
    httpPort: e.HTTP_PORT,
    managementPort: e.MANAGEMENT_PORT,
    kafka: { brokers: e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean), clientId: e.KAFKA_CLIENT_ID, security },
    topics: topicsFor(e.ARVIS_TOPIC_PREFIX),
    toolPackages: e.ARVIS_TOOL_PACKAGES,
    // Compared as a string with each token's `aud`: no trailing-slash variants.
    resourceUri: new URL(e.MCP_RESOURCE_URI).href,
    issuers: e.MCP_ISSUERS,
    authorizerUrl: e.AUTHORIZER_URL.replace(/\/+$/, ''),
    resultWaitS: e.MCP_RESULT_WAIT_S,
    confirmationWaitS: e.MCP_CONFIRMATION_WAIT_S,
    defaultRiskScore: e.MCP_DEFAULT_RISK_SCORE,
  };
}

export type McpConfig = ReturnType<typeof loadMcpConfig>;
export const MCP_CONFIG = Symbol('MCP_CONFIG');
